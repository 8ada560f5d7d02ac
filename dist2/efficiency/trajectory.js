export {};
//# sourceMappingURL=trajectory.js.map