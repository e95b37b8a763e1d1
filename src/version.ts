/** The package version, reported by `/openapi.json` and `tollgate --help`. */
export const VERSION = '0.1.0';
