#!/usr/bin/env bash
# One command from a fresh Debian machine with Node 20 to a built, working mcp-engines:
#   1. the Debian packages the engines and tests need (OCaml toolchain, OpenSSH server,
#      C64 assemblers/compilers, Guile for the Lispex benchmark, the Unicode data the Lispex tables are checked against), only those missing;
#   2. the npm dependencies, exactly as locked;
#   3. the build (ESM + CommonJS + types into dist/);
#   4. the main job: the demo, which starts every server and talks to it with the official
#      MCP SDK client.
set -euo pipefail
cd "$(dirname "$0")"

APT_PACKAGES=(ocaml-nox ocaml-dune ocaml-findlib libfindlib-ocaml-dev openssh-server acme 64tass cc65 guile-3.0 unicode-data binutils-riscv64-unknown-elf gcc-riscv64-unknown-elf make g++ python3 chromium)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

node -e 'const [maj]=process.versions.node.split(".").map(Number); if (maj < 20) { console.error(`setup: Node >= 20 needed, found ${process.version}`); process.exit(1) }'

# The Lispex products (products/) are Rust, std only: Debian's rustc/cargo (1.63) suffice.
if ! command -v cargo >/dev/null 2>&1 && [ ! -x "$HOME/.cargo/bin/cargo" ]; then
  echo "setup: installing Debian rustc cargo"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq rustc cargo >/dev/null
fi

echo "setup: installing npm dependencies"
npm ci --no-audit --no-fund --loglevel=error

echo "setup: building"
npm run build --silent

echo "setup: building the RISC-V example programs (examples/riscv/build/)"
node --import tsx examples/riscv/build.ts

echo "setup: building the Rust products into dist/products"
node scripts/build-products.mjs

echo "setup: running the demo"
node scripts/demo.mjs
