/** This package's version, sent in User-Agent (kept equal to package.json by a unit test). */
export const VERSION = '0.1.0';
