/**
 * A string as a regular expression that matches exactly it: every character with a meaning in a
 * pattern escaped. One definition for the places that build patterns out of literals (the redaction
 * pre-scan's triggers, the eval runner's key masks, the tool-error probe scan).
 */
export const regexpLiteral = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
