"""The secrets citeproof keeps: the evidence log's Ed25519 signing key and the handle secret.

Why files in the data directory: both must survive between runs (a checkpoint signed today
must verify next year; a handle issued today must resolve tomorrow) and belong to the user,
not to a project checkout.  Both are created on first use.

Decisions:

* **Created atomically and race-free.**  The secret is written to a private temporary file
  (mode 0600, fsynced) and then *hard-linked* to its final name; ``link`` fails if the name
  exists, so when two processes start at once exactly one key wins and the other process
  reads it.  Nobody ever sees a half-written key.  On a filesystem without hard links the
  creation falls back to ``O_EXCL`` under a file lock.
* **Mode 0600** on every secret file, 0700 on the directory we create.
* **The public key is exported as a signed-note verifier key**,
  ``<name>+<hex key hash>+<base64(0x01 || public key)>`` (the format of Go's
  ``golang.org/x/mod/sumdb/note`` and of C2SP signed notes), so a checkpoint can be checked
  with standard tools and one string carries the name, the key hash and the key.
* **The key's name is derived from the public key** (``citeproof-log-<16 hex>``), so logs
  kept by different people have different origins and a checkpoint of one is never
  mistaken for a checkpoint of another.
* ``CITEPROOF_HANDLE_KEY`` overrides the stored handle secret (its UTF-8 bytes, at least 16),
  so a team can share handles without sharing a data directory.
* **A key file other users can read or change is reported, not ignored.**  By default it is
  used with a warning (a :class:`~citeproof.errors.KeyFileWarning` naming the file and the
  ``chmod 600`` that fixes it; the command line prints it as one ``citeproof: warning:``
  line); with
  ``CITEPROOF_STRICT_KEYS=1`` (what ``citeproof --strict-keys`` sets) it is refused with a
  :class:`KeyFileError`.  The mode is read from the open file (``fstat``), so the bytes
  checked are the bytes used.  On Windows, which has no such mode bits, nothing is checked.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import re
import stat
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from citeproof.errors import BadInputError, KeyFileError, KeyFileWarning

# cryptography is imported where a key is used, not here: the MCP server and the CLI import
# this module for its types at start-up, and the library costs about 30 ms to import.
if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

__all__ = [
    "HANDLE_KEY_ENV",
    "STRICT_KEYS_ENV",
    "KeyFileError",
    "LogKey",
    "Verifier",
    "handle_key",
    "key_hash",
    "load_or_create_log_key",
    "parse_verifier_key",
    "strict_keys",
]

HANDLE_KEY_ENV = "CITEPROOF_HANDLE_KEY"
STRICT_KEYS_ENV = "CITEPROOF_STRICT_KEYS"
_TRUE = frozenset({"1", "true", "yes", "on"})
LOG_KEY_FILE = "log-ed25519.pem"
HANDLE_KEY_FILE = "handle.key"
ED25519_ALG = 0x01
MIN_HANDLE_KEY_BYTES = 16
_KEY_RE = re.compile(r"[^+\s]+\+[0-9a-fA-F]{8}\+[A-Za-z0-9+/]+=*")


def key_hash(name: str, public: bytes) -> bytes:
    """The 4-byte signed-note key hash: SHA-256(name || "\\n" || 0x01 || public)[:4]."""
    return hashlib.sha256(name.encode("utf-8") + b"\n" + bytes([ED25519_ALG]) + public).digest()[:4]


@dataclass(frozen=True, slots=True)
class Verifier:
    """A public key with its signed-note name and key hash: enough to check a signature."""

    name: str
    public: bytes

    @property
    def hash(self) -> bytes:
        return key_hash(self.name, self.public)

    def verify(self, message: bytes, signature: bytes) -> bool:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

        try:
            Ed25519PublicKey.from_public_bytes(self.public).verify(signature, message)
        except (InvalidSignature, ValueError):
            return False
        return True

    def verifier_key(self) -> str:
        """``<name>+<hex key hash>+<base64(0x01 || public)>``."""
        data = base64.b64encode(bytes([ED25519_ALG]) + self.public).decode("ascii")
        return f"{self.name}+{self.hash.hex()}+{data}"


@dataclass(frozen=True, slots=True)
class LogKey:
    """The log's private signing key with its public half and name."""

    private: Ed25519PrivateKey
    name: str

    @classmethod
    def from_private(cls, private: Ed25519PrivateKey, name: str | None = None) -> LogKey:
        public = _public_bytes(private)
        return cls(private, name or f"citeproof-log-{hashlib.sha256(public).hexdigest()[:16]}")

    @classmethod
    def generate(cls, name: str | None = None) -> LogKey:
        """A fresh key that is not stored anywhere (tests, throw-away logs)."""
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        return cls.from_private(Ed25519PrivateKey.generate(), name)

    @property
    def public(self) -> bytes:
        return _public_bytes(self.private)

    @property
    def verifier(self) -> Verifier:
        return Verifier(self.name, self.public)

    def sign(self, message: bytes) -> bytes:
        return self.private.sign(message)


def _public_bytes(private: Ed25519PrivateKey) -> bytes:
    return private.public_key().public_bytes_raw()


def parse_verifier_key(text: str) -> Verifier:
    """Read a verifier key string (``name+hash+base64``), or a file holding one.

    Raises :class:`KeyFileError` saying what is wrong: bad shape, not Ed25519, or a key hash
    that does not match the name and key (a typo or a spliced string).
    """
    value = text.strip()
    if not _KEY_RE.fullmatch(value):
        path = Path(value).expanduser()
        try:
            value = path.read_text(encoding="utf-8").strip()
        except (OSError, ValueError) as exc:
            raise KeyFileError(
                f"{text!r} is neither a public key (NAME+HASH+KEY, as printed by "
                "`citeproof log key`) nor a readable file holding one."
            ) from exc
    if not _KEY_RE.fullmatch(value):
        raise KeyFileError(
            "the public key must look like NAME+HASH+KEY, as printed by `citeproof log key`."
        )
    parts = value.split("+", 2)
    name, hash_hex, data = parts
    try:
        raw = base64.b64decode(data, validate=True)
        wanted = bytes.fromhex(hash_hex)
    except ValueError as exc:
        raise KeyFileError(f"the public key for {name} is not valid hex/base64 ({exc}).") from exc
    if len(raw) != 33 or raw[0] != ED25519_ALG:
        raise KeyFileError(f"the public key for {name} is not an Ed25519 key.")
    verifier = Verifier(name, raw[1:])
    if verifier.hash != wanted:
        raise KeyFileError(
            f"the public key for {name} is damaged: its key hash does not match the key."
        )
    return verifier


# --------------------------------------------------------------------------- files


def _write_new_secret(path: Path, data: bytes) -> bool:
    """Create ``path`` holding ``data`` unless it exists; True when this call created it."""
    import secrets  # only when a secret is made: a check's evidence line never does

    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(tmp, path)
        created = True
    except FileExistsError:
        created = False
    except OSError:  # pragma: no cover - a filesystem without hard links
        from filelock import FileLock

        with FileLock(str(path) + ".lock"):
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                created = False
            else:
                try:
                    os.write(fd, data)
                    os.fsync(fd)
                finally:
                    os.close(fd)
                created = True
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    if created:
        with contextlib.suppress(OSError):
            dir_fd = os.open(path.parent, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)
    return created


def strict_keys(env: Mapping[str, str] | None = None) -> bool:
    """Whether key files others can read or change are refused (``CITEPROOF_STRICT_KEYS``
    is ``1``, ``true``, ``yes`` or ``on``; ``env`` defaults to the process environment)."""
    environ = os.environ if env is None else env
    return environ.get(STRICT_KEYS_ENV, "").strip().lower() in _TRUE


def _exposure(mode: int) -> str | None:
    """How a secret file's permission bits expose it to other users (None: they do not)."""
    if mode & 0o044:
        return "readable by other users"
    if mode & 0o022:
        return "writable by other users"
    if mode & 0o011:
        return "open to other users"
    return None


def _check_private(path: Path, mode: int, what: str, strict: bool) -> None:
    """Warn about (or, when ``strict``, refuse) a key file that others can read or change."""
    exposure = _exposure(stat.S_IMODE(mode)) if os.name == "posix" else None
    if exposure is None:
        return
    bits = f"mode {stat.S_IMODE(mode):04o}"
    if strict:
        raise KeyFileError(
            f"refusing the key file {path}: it is {exposure} ({bits}), and strict key "
            f"checking is on ({STRICT_KEYS_ENV}=1 or --strict-keys). Run `chmod 600 {path}` "
            "and try again."
        )
    warnings.warn(
        f"the key file {path} is {exposure} ({bits}): whoever can read it can {what}. "
        f"Run `chmod 600 {path}` ({STRICT_KEYS_ENV}=1 refuses such a file).",
        KeyFileWarning,
        stacklevel=4,
    )


def _read_secret(path: Path, what: str, env: Mapping[str, str] | None) -> bytes:
    """The bytes of the key file ``path``, after checking who else may read it."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as exc:
        raise KeyFileError(
            f"cannot read the key file {path} ({exc.strerror}); check its permissions."
        ) from exc
    try:
        _check_private(path, os.fstat(fd).st_mode, what, strict_keys(env))
        with os.fdopen(os.dup(fd), "rb") as f:
            return f.read()
    except OSError as exc:
        raise KeyFileError(
            f"cannot read the key file {path} ({exc.strerror}); check its permissions."
        ) from exc
    finally:
        os.close(fd)


#: An unencrypted PKCS #8 Ed25519 private key in PEM is these bytes, then its 32-byte seed,
#: base64 between these lines (RFC 8410): what citeproof writes.
_PEM_BEGIN, _PEM_END = b"-----BEGIN PRIVATE KEY-----", b"-----END PRIVATE KEY-----"
_PKCS8_ED25519 = bytes.fromhex("302e020100300506032b657004220420")


def _ed25519_seed(pem: bytes) -> bytes | None:
    """The seed of a key file as citeproof writes it; None for any other file.

    Why not always ``load_pem_private_key``: importing cryptography's serialization package
    (its SSH formats and bcrypt) costs more than the rest of a check's evidence line, which
    is paid by every ``citeproof check``.  Anything else goes to cryptography's reader.
    """
    body = pem.strip()
    if not (body.startswith(_PEM_BEGIN) and body.endswith(_PEM_END)):
        return None
    try:
        der = base64.b64decode(body[len(_PEM_BEGIN) : -len(_PEM_END)], validate=False)
    except ValueError:
        return None
    if len(der) != len(_PKCS8_ED25519) + 32 or not der.startswith(_PKCS8_ED25519):
        return None
    return der[len(_PKCS8_ED25519) :]


def load_or_create_log_key(key_dir: Path, env: Mapping[str, str] | None = None) -> LogKey:
    """The log signing key stored in ``key_dir``, created (mode 0600) on first use.

    A key file other users can read is used with a warning, or refused with
    :class:`KeyFileError` when ``CITEPROOF_STRICT_KEYS=1`` (in ``env``, which defaults to
    the process environment).
    """
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    path = key_dir / LOG_KEY_FILE
    if not path.exists():
        from cryptography.hazmat.primitives import serialization

        private = Ed25519PrivateKey.generate()
        pem = private.private_bytes(
            encoding=serialization.Encoding.PEM,
            format=serialization.PrivateFormat.PKCS8,
            encryption_algorithm=serialization.NoEncryption(),
        )
        _write_new_secret(path, pem)
    data = _read_secret(path, "sign entries into your evidence log", env)
    seed = _ed25519_seed(data)
    if seed is not None:
        return LogKey.from_private(Ed25519PrivateKey.from_private_bytes(seed))
    from cryptography.hazmat.primitives import serialization

    try:
        loaded = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise KeyFileError(
            f"the log signing key {path} is damaged or not an unencrypted PEM key ({exc}); "
            "restore it from a backup (a new key cannot sign for the old checkpoints)."
        ) from exc
    if not isinstance(loaded, Ed25519PrivateKey):
        raise KeyFileError(f"the log signing key {path} is not an Ed25519 key.")
    return LogKey.from_private(loaded)


def handle_key(key_dir: Path, env: Mapping[str, str] | None = None) -> bytes:
    """The HMAC secret for handles: ``CITEPROOF_HANDLE_KEY`` or ``key_dir/handle.key``.

    The stored secret is 32 random bytes created (mode 0600) on first use; a stored file
    other users can read is warned about, or refused when ``CITEPROOF_STRICT_KEYS=1``.
    """
    environ = os.environ if env is None else env
    override = environ.get(HANDLE_KEY_ENV, "")
    if override:
        data = override.encode("utf-8")
        if len(data) < MIN_HANDLE_KEY_BYTES:
            raise BadInputError(
                f"{HANDLE_KEY_ENV} is too short ({len(data)} bytes); use at least "
                f"{MIN_HANDLE_KEY_BYTES} random characters."
            )
        return data
    path = key_dir / HANDLE_KEY_FILE
    if not path.exists():
        import secrets

        _write_new_secret(path, secrets.token_bytes(32))
    data = _read_secret(path, "forge citation handles that resolve as yours", environ)
    if len(data) != 32:
        raise KeyFileError(
            f"the handle secret {path} is {len(data)} bytes, not 32; restore it from a "
            "backup, or delete it to start a new one (old handles then stop resolving)."
        )
    return data
