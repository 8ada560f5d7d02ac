export {};
//# sourceMappingURL=reader.js.map