// Filled in by the packages' first real modules.
export {};
