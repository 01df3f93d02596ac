// Checkpoint labels become file names: everything that could escape the checkpoint directory or
// hide a file is refused before the disk is touched.
import { OcamlError } from './errors.js';

const LABEL = /^[A-Za-z0-9._-]+$/;

export function validateCheckpointLabel(label: string): string {
  const why =
    label.length === 0
      ? 'it is empty'
      : !LABEL.test(label)
        ? 'it contains characters outside [A-Za-z0-9._-]'
        : label.startsWith('.')
          ? 'it starts with a dot'
          : label.includes('..')
            ? 'it contains ".."'
            : label.length > 200
              ? 'it is longer than 200 characters'
              : null;
  if (why) {
    throw new OcamlError(
      'bad_argument',
      `invalid checkpoint label ${JSON.stringify(label)}: ${why}; expected a name matching [A-Za-z0-9._-]+ with no leading dot and no ".."`,
    );
  }
  return label;
}
