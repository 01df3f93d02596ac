// Startup product selections of `lispex mcp serve`: --topaz-vm, --topaz-compiler, --rust-tools.
// Accepted only as absolute paths to existing executable files, the last two only together, and
// validated before the server starts. There is no other way to name a product: no PATH or
// environment lookup, and no request field ever carries a path.

import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { handshake } from '../../engines/lispex/external/handshake.js';

export type ProductFlag = '--topaz-vm' | '--topaz-compiler' | '--rust-tools';
export const PRODUCT_FLAGS: readonly ProductFlag[] = ['--topaz-vm', '--topaz-compiler', '--rust-tools'];

/** One validated product: the path as given and the file it resolved to at startup. */
export interface Product {
  readonly flag: ProductFlag;
  readonly path: string;
  readonly realPath: string;
}

/** Immutable startup configuration. */
export interface StartupProducts {
  readonly topazVm?: Product;
  readonly topazCompiler?: Product;
  readonly rustTools?: Product;
}

export const NO_PRODUCTS: StartupProducts = Object.freeze({});

/** A startup option problem: the message names the option, what was given and what is expected. */
export class StartupOptionError extends Error {
  override readonly name = 'StartupOptionError';
}

/** Parse and validate the options after `lispex mcp serve`. */
export function parseStartupProducts(argv: readonly string[]): StartupProducts {
  const given = new Map<ProductFlag, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const flag = (eq > 0 ? arg.slice(0, eq) : arg) as ProductFlag;
    if (!PRODUCT_FLAGS.includes(flag)) {
      throw new StartupOptionError(
        `unknown option ${JSON.stringify(arg)}; expected only ${PRODUCT_FLAGS.join(', ')} (each with an absolute path)`,
      );
    }
    let value: string | undefined;
    if (eq > 0) value = arg.slice(eq + 1);
    else {
      value = argv[i + 1];
      i++;
    }
    if (value === undefined || value === '' || (eq < 0 && value.startsWith('--'))) {
      throw new StartupOptionError(`${flag} needs an absolute path to an executable file`);
    }
    if (given.has(flag)) throw new StartupOptionError(`${flag} was given more than once`);
    given.set(flag, value);
  }
  if (given.has('--topaz-compiler') !== given.has('--rust-tools')) {
    const present = given.has('--topaz-compiler') ? '--topaz-compiler' : '--rust-tools';
    const missing = present === '--topaz-compiler' ? '--rust-tools' : '--topaz-compiler';
    throw new StartupOptionError(`${present} must appear together with ${missing}`);
  }
  const products: { topazVm?: Product; topazCompiler?: Product; rustTools?: Product } = {};
  for (const [flag, path] of given) {
    const product = validateProduct(flag, path);
    if (flag === '--topaz-vm') products.topazVm = product;
    else if (flag === '--topaz-compiler') products.topazCompiler = product;
    else products.rustTools = product;
  }
  return Object.freeze(products);
}

function validateProduct(flag: ProductFlag, path: string): Product {
  const shown = JSON.stringify(path);
  if (!isAbsolute(path)) throw new StartupOptionError(`${flag} must be an absolute path; got ${shown}`);
  let isFile: boolean;
  try {
    isFile = statSync(path).isFile();
  } catch {
    throw new StartupOptionError(`${flag} ${shown} does not exist`);
  }
  if (!isFile) throw new StartupOptionError(`${flag} ${shown} is not a regular file`);
  try {
    accessSync(path, constants.X_OK);
  } catch {
    throw new StartupOptionError(`${flag} ${shown} is not executable`);
  }
  // Products must speak our protocol version; --rust-tools names a toolchain, not a product.
  if (flag !== '--rust-tools') {
    const answer = handshake(path);
    if (!answer.ok) throw new StartupOptionError(`${flag} ${shown} ${answer.problem}`);
  }
  return { flag, path, realPath: realpathSync(path) };
}
