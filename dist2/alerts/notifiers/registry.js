export {};
//# sourceMappingURL=registry.js.map