"""TLS for a club night: a private certificate authority for the night's hub and the hub's
server certificate, made with the ``openssl`` command (Debian's ``openssl`` package), and the
Mosquitto listener that uses them.

``make_certs(folder, names)`` writes into ``folder`` (0700): ``ca.key`` and ``ca.crt`` (the
club's CA: its key never leaves the director's machine), ``hub.key`` and ``hub.crt`` (the hub's
certificate, signed by the CA, valid for ``names``: the host names and addresses tables use to
reach the hub; ``localhost`` and 127.0.0.1 are always in). Tables get ``ca.crt`` only: the link
checks that the hub's certificate is signed by it and names the address it connected to, so a
machine pretending to be the hub on the club's Wi-Fi is refused, and the tables' passwords cross
the network encrypted. The same steps by hand are in docs/CLUB.md.
"""

from __future__ import annotations

import ipaddress
import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

CA_DAYS = 3650
HUB_DAYS = 825  # what browsers and most TLS stacks accept for a server certificate


class TlsError(RuntimeError):
    """The certificates could not be made: what and why."""


@dataclass(frozen=True)
class TlsFiles:
    ca: Path
    cert: Path
    key: Path

    @classmethod
    def in_folder(cls, folder: Path) -> TlsFiles:
        return cls(folder / "ca.crt", folder / "hub.crt", folder / "hub.key")

    def exist(self) -> bool:
        return self.ca.is_file() and self.cert.is_file() and self.key.is_file()


def find_openssl() -> str | None:
    return shutil.which("openssl")


def alt_names(names: Sequence[str]) -> str:
    """The certificate's subjectAltName: IP entries for addresses, DNS entries for names."""
    out: list[str] = []
    for n in ["localhost", "127.0.0.1", *names]:
        n = n.strip()
        if not n:
            continue
        try:
            entry = f"IP:{ipaddress.ip_address(n)}"
        except ValueError:
            if not all(part and all(c.isalnum() or c == "-" for c in part) for part in n.split(".")):
                raise TlsError(f"{n!r} is neither an IP address nor a host name") from None
            entry = f"DNS:{n}"
        if entry not in out:
            out.append(entry)
    return ",".join(out)


def _run(args: list[str], what: str) -> None:
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        raise TlsError(f"openssl could not {what}: {(r.stderr or r.stdout).strip().splitlines()[-1:]}")


def make_certs(folder: Path, names: Sequence[str] = (), night: str = "club") -> TlsFiles:
    """A fresh CA and hub certificate in ``folder``; TlsError naming what failed."""
    openssl = find_openssl()
    if openssl is None:
        raise TlsError("the openssl command is not installed (Debian package 'openssl')")
    sans = alt_names(names)
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    f = TlsFiles.in_folder(folder)
    ca_key, csr, ext = folder / "ca.key", folder / "hub.csr", folder / "hub.ext"
    old = os.umask(0o077)  # keys are private from their first byte
    try:
        curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        _run([openssl, "req", "-x509", *curve, "-keyout", str(ca_key), "-out", str(f.ca), "-days", str(CA_DAYS),
              "-subj", f"/CN=trickref club {night} CA", "-addext", "basicConstraints=critical,CA:TRUE",
              "-addext", "keyUsage=critical,keyCertSign,cRLSign"], "make the club's CA")
        _run([openssl, "req", *curve, "-keyout", str(f.key), "-out", str(csr), "-subj", f"/CN=trickref club {night} hub"],
             "make the hub's key")
        ext.write_text(f"subjectAltName={sans}\nbasicConstraints=critical,CA:FALSE\n"
                       "keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n"
                       "subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid,issuer\n")
        _run([openssl, "x509", "-req", "-in", str(csr), "-CA", str(f.ca), "-CAkey", str(ca_key), "-CAcreateserial",
              "-out", str(f.cert), "-days", str(HUB_DAYS), "-sha256", "-extfile", str(ext)], "sign the hub's certificate")
    finally:
        os.umask(old)
        for p in (csr, ext, folder / "ca.srl"):
            p.unlink(missing_ok=True)
    for p in (ca_key, f.key, f.cert, f.ca):
        os.chmod(p, 0o600 if p.suffix == ".key" else 0o644)
    return f


def listener_conf(port: int, host: str, files: TlsFiles, max_connections: int = -1) -> str:
    """Mosquitto's TLS listener (with ``per_listener_settings false`` the passwords and the ACL
    are the same as on the plain listener)."""
    return "\n".join([
        "# trickref club night: the TLS listener (tables connect here with the club's ca.crt)",
        f"listener {port} {host}",
        f"max_connections {max_connections}",
        "use_username_as_clientid true",
        f"cafile {files.ca}",
        f"certfile {files.cert}",
        f"keyfile {files.key}",
        "tls_version tlsv1.2",
        "",
    ])
