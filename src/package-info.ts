// Package root and version live in common/ (engines need them too); re-exported for src/ callers.
export { packageRoot, packageVersion } from '../common/package-info.js';
