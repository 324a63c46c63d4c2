#!/usr/bin/env python3
"""A minimal Velo bike IoT module, written from docs/iot-protocol.md (protocol version 1, OTA
generation 2) alone.

Standard library + paho-mqtt (1.6 as Debian 12 ships it, or 2.x). Ed25519 verification uses
python3-cryptography when it is installed, else a small pure-Python RFC 8032 verifier below.

    python3 velo_device.py --self-test
    python3 velo_device.py --api http://localhost:8080/api --product VELO-4G --key <key> --sn VL000123

Nothing is flashed: installs, reboots and the self-test are simulated; what a real module keeps
in flash is kept in --state-dir (device.json, ota/<id>.json + ota/<id>.bin).
"""
from __future__ import annotations

import argparse
import base64
import binascii
import email.utils
import hashlib
import hmac
import json
import logging
import os
import queue
import random
import re
import secrets
import signal
import socket
import ssl
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

try:
    import paho.mqtt.client as mqtt
except ImportError:  # pragma: no cover - only --self-test works without it
    mqtt = None

log = logging.getLogger("velo")

PROTOCOL = 1
OTA_GENERATION = 2
PARTS = ("iot", "display", "bms", "ecu")
MANIFEST_KEYS = ("format", "part", "kind", "supplier", "product", "name", "version", "size",
                 "sha256", "hardware", "minVersion")
ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
SN_RE = re.compile(r"^[A-Z0-9]{4,32}$")

# Settings this firmware supports through setConfig: name -> (min, max) for whole numbers, or
# bool / str. The document names no settings and no ranges (see README: "document gaps"); these
# are the fields of the server's configuration templates (IoT configuration) with the ranges its
# API schema gives them, plus heartbeatSeconds, which the document names.
SETTINGS: dict[str, tuple] = {
    "heartbeatSeconds": ("int", 10, 3600),
    "lowBatteryPercent": ("int", 1, 50),
    "overSpeedKmh": ("int", 10, 60),
    "alarmVolume": ("int", 0, 10),
    "alarmSeconds": ("int", 1, 120),
    "fallAngle": ("int", 20, 90),
    "vibrationSensitivity": ("int", 1, 5),
    "wakeUpMinutes": ("int", 1, 1440),
    "lowPowerMinutes": ("int", 1, 1440),
    "ultraLowPowerHours": ("int", 1, 168),
    "transceiveSeconds": ("int", 5, 3600),
    "ridingSeconds": ("int", 1, 600),
    "gpsReportSeconds": ("int", 1, 3600),
    "traceReportSeconds": ("int", 1, 3600),
    "traceReportMeters": ("int", 1, 1000),
}
DEFAULT_CONFIG = {"fallAngle": 60, "vibrationSensitivity": 3, "gpsReportSeconds": 30}

FUNCTION_COMMANDS = ("lock", "unlock", "findBike", "locate", "setAlarm", "transportMode", "playAudio")


# --------------------------------------------------------------------------------------------
# Small pure functions (checked by --self-test against the document's worked examples)
# --------------------------------------------------------------------------------------------

def registration_sign(key: str, product_id: str, sn: str, timestamp: int, nonce: str) -> str:
    """hex(HMAC-SHA256(key as UTF-8 text, "productId:sn:timestamp:nonce"))."""
    text = f"{product_id}:{sn}:{timestamp}:{nonce}"
    return hmac.new(key.encode("utf-8"), text.encode("utf-8"), hashlib.sha256).hexdigest()


def new_nonce() -> str:
    return base64.urlsafe_b64encode(secrets.token_bytes(16)).rstrip(b"=").decode("ascii")


def crc8_smbus(data: bytes) -> int:
    """CRC-8/SMBUS: poly 0x07, init 0, not reflected, xorout 0."""
    crc = 0
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    return crc


def key_id(public_key_raw: bytes) -> str:
    return hashlib.sha256(public_key_raw).hexdigest()[:16]


def version_tuple(v: str) -> tuple:
    out = []
    for part in re.split(r"[.\-+]", v or ""):
        out.append((0, int(part), "") if part.isdigit() else (1, 0, part))
    return tuple(out)


def version_at_least(running: str, minimum: str) -> bool:
    return not minimum or version_tuple(running) >= version_tuple(minimum)


# ---- Ed25519 (verification only) ----------------------------------------------------------------

try:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
except Exception:  # pragma: no cover
    Ed25519PublicKey = None


def _ed25519_verify_cryptography(pub: bytes, msg: bytes, sig: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(pub).verify(sig, msg)
        return True
    except (InvalidSignature, ValueError):
        return False


# RFC 8032 section 6 reference code, verification part.
_P = 2 ** 255 - 19
_L = 2 ** 252 + 27742317777372353535851937790883648493
_D = -121665 * pow(121666, _P - 2, _P) % _P
_I = pow(2, (_P - 1) // 4, _P)


def _recover_x(y: int, sign: int):
    if y >= _P:
        return None
    x2 = (y * y - 1) * pow(_D * y * y + 1, _P - 2, _P)
    if x2 % _P == 0:
        return None if sign else 0
    x = pow(x2, (_P + 3) // 8, _P)
    if (x * x - x2) % _P != 0:
        x = x * _I % _P
    if (x * x - x2) % _P != 0:
        return None
    if (x & 1) != sign:
        x = _P - x
    return x


def _pt_add(a, b):
    A = (a[1] - a[0]) * (b[1] - b[0]) % _P
    B = (a[1] + a[0]) * (b[1] + b[0]) % _P
    C = 2 * a[3] * b[3] * _D % _P
    Dd = 2 * a[2] * b[2] % _P
    E, F, G, H = B - A, Dd - C, Dd + C, B + A
    return (E * F % _P, G * H % _P, F * G % _P, E * H % _P)


def _pt_mul(s: int, pt):
    q = (0, 1, 1, 0)
    while s > 0:
        if s & 1:
            q = _pt_add(q, pt)
        pt = _pt_add(pt, pt)
        s >>= 1
    return q


def _pt_equal(a, b) -> bool:
    return (a[0] * b[2] - b[0] * a[2]) % _P == 0 and (a[1] * b[2] - b[1] * a[2]) % _P == 0


_GY = 4 * pow(5, _P - 2, _P) % _P
_GX = _recover_x(_GY, 0)
_G = (_GX, _GY, 1, _GX * _GY % _P)


def _pt_decompress(s: bytes):
    if len(s) != 32:
        return None
    y = int.from_bytes(s, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    x = _recover_x(y, sign)
    return None if x is None else (x, y, 1, x * y % _P)


def _ed25519_verify_pure(pub: bytes, msg: bytes, sig: bytes) -> bool:
    if len(pub) != 32 or len(sig) != 64:
        return False
    a = _pt_decompress(pub)
    r = _pt_decompress(sig[:32])
    if a is None or r is None:
        return False
    s = int.from_bytes(sig[32:], "little")
    if s >= _L:
        return False
    h = int.from_bytes(hashlib.sha512(sig[:32] + pub + msg).digest(), "little") % _L
    return _pt_equal(_pt_mul(s, _G), _pt_add(r, _pt_mul(h, a)))


def ed25519_verify(pub: bytes, msg: bytes, sig: bytes) -> bool:
    if len(pub) != 32 or len(sig) != 64:
        return False
    if Ed25519PublicKey is not None:
        return _ed25519_verify_cryptography(pub, msg, sig)
    return _ed25519_verify_pure(pub, msg, sig)


def b64decode(text: str) -> bytes:
    return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)


def check_manifest(offer: dict, manifest_text: str, dev: dict):
    """Step 3 of the device's check. dev: {version, hardware, supplier, product, known audio}.
    Returns None when it passes, else a message."""
    try:
        m = json.loads(manifest_text)
    except ValueError:
        return "The manifest is not JSON"
    if not isinstance(m, dict):
        return "The manifest is not an object"
    missing = [k for k in MANIFEST_KEYS if k not in m]
    if missing:
        return "The manifest lacks " + ", ".join(missing)
    if m["format"] != 1:
        return f"Manifest format {m['format']} is not 1"
    if m["part"] != offer.get("part"):
        return "The manifest is for another part"
    if m["kind"] != offer.get("payload", "firmware"):
        return "The manifest is for another kind of payload"
    if m["kind"] == "firmware":
        if dev.get("supplier") and m["supplier"] != dev["supplier"]:
            return f"Supplier {m['supplier']} is not this part's ({dev['supplier']})"
        if dev.get("product") and m["product"] != dev["product"]:
            return f"Product {m['product']} is not this part's ({dev['product']})"
    if m["kind"] == "audio" and m["name"] != offer.get("name"):
        return "The manifest is for another audio name"
    if m["version"] != offer.get("version"):
        return "The manifest's version is not the offer's"
    if m["size"] != offer.get("size"):
        return "The manifest's size is not the offer's"
    if str(m["sha256"]).lower() != str(offer.get("sha256", "")).lower():
        return "The manifest's SHA-256 is not the offer's"
    hw = m["hardware"]
    if not isinstance(hw, list):
        return "The manifest's hardware is not a list"
    if hw and dev.get("hardware") and dev["hardware"] not in hw:
        return f"Hardware {dev['hardware']} is not among {', '.join(map(str, hw))}"
    if m["kind"] == "firmware" and not version_at_least(dev.get("version") or "", m["minVersion"]):
        return f"Runs {dev.get('version')}, below the manifest's minVersion {m['minVersion']}"
    return None


# --------------------------------------------------------------------------------------------
# Self-test: the document's worked examples
# --------------------------------------------------------------------------------------------

def self_test() -> bool:
    ok = True

    def check(name, cond):
        nonlocal ok
        print(("PASS " if cond else "FAIL ") + name)
        ok = ok and bool(cond)

    sign = registration_sign("kZ3v9QeR7tYw1xLm4NpB8sDf2GhJ6aUc", "VELO-4G", "VL000123",
                             1763600000000, "q3Zb8kR1xW0pT5mYc2LhVg")
    check("registration signature = f6c76c8a…7486",
          sign == "f6c76c8a1e57f7be523330dace6221dfd0ed0dcab804db692b29fdaaab4d7486")
    check("signed text is 53 bytes",
          len("VELO-4G:VL000123:1763600000000:q3Zb8kR1xW0pT5mYc2LhVg".encode()) == 53)
    decoded = base64.urlsafe_b64decode("kZ3v9QeR7tYw1xLm4NpB8sDf2GhJ6aUc")
    wrong = hmac.new(decoded, b"VELO-4G:VL000123:1763600000000:q3Zb8kR1xW0pT5mYc2LhVg",
                     hashlib.sha256).hexdigest()
    check("base64-decoded key gives 50dfa172… (the wrong one)", wrong.startswith("50dfa172"))
    n = new_nonce()
    check("nonce is 22 base64url characters", re.fullmatch(r"[A-Za-z0-9_-]{16,64}", n) is not None)
    check("CRC-8/SMBUS check value of '123456789' is 0xF4", crc8_smbus(b"123456789") == 0xF4)

    pub = bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
    check("public key base64", base64.b64encode(pub).decode() == "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=")
    check("keyId = 21fe31dfa154a261", key_id(pub) == "21fe31dfa154a261")
    manifest = ('{"format":1,"part":"iot","kind":"firmware","supplier":"QT","product":"EC","name":"",'
                '"version":"1.3.0","size":2097152,"sha256":"96e1e6038d33226a55b3fdde5bf33309c8e9da82de606777ad5508e3c9ef0fa6",'
                '"hardware":["HW-A1"],"minVersion":""}')
    check("manifest is 230 bytes", len(manifest.encode()) == 230)
    sig_b64 = "EBK1J++GbAEikHcOyH8txtfDYGd56lyRpyr7wMHTQBaelxO5y4pWpjCbB2ZKGp/EEeC4WWVZccyXDxLPgZfsBw=="
    sig = b64decode(sig_b64)
    check("signature hex", sig.hex() == "1012b527ef866c012290770ec87f2dc6d7c3606779ea5c91a72afbc0c1d340169e9713b9cb8a56a6309b07664a1a9fc411e0b859655971cc970f12cf8197ec07")
    backends = [("pure-Python", _ed25519_verify_pure)]
    if Ed25519PublicKey is not None:
        backends.append(("python3-cryptography", _ed25519_verify_cryptography))
    for name, fn in backends:
        check(f"Ed25519 ({name}) verifies the manifest", fn(pub, manifest.encode(), sig))
        bad_m = manifest.replace('"1.3.0"', '"1.3.1"').encode()
        check(f"Ed25519 ({name}) refuses a changed manifest byte", not fn(pub, bad_m, sig))
        bad_s = bytearray(sig)
        bad_s[10] ^= 1
        check(f"Ed25519 ({name}) refuses a changed signature byte", not fn(pub, manifest.encode(), bytes(bad_s)))
    offer = {"part": "iot", "payload": "firmware", "version": "1.3.0", "size": 2097152,
             "sha256": "96e1e6038d33226a55b3fdde5bf33309c8e9da82de606777ad5508e3c9ef0fa6"}
    dev = {"version": "1.0.0", "hardware": "HW-A1"}
    check("manifest matches an HW-A1 module running 1.0.0", check_manifest(offer, manifest, dev) is None)
    check("manifest refused for hardware HW-B2",
          check_manifest(offer, manifest, {"version": "1.0.0", "hardware": "HW-B2"}) is not None)
    check("manifest refused for another offered size",
          check_manifest(dict(offer, size=1), manifest, dev) is not None)
    return ok


# --------------------------------------------------------------------------------------------
# Persistence
# --------------------------------------------------------------------------------------------

def write_json(path: str, data) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def read_json(path: str, default=None):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return default


class RegistrationError(Exception):
    pass


# --------------------------------------------------------------------------------------------
# The device
# --------------------------------------------------------------------------------------------

class Device:
    def __init__(self, args):
        self.args = args
        self.sn = args.sn
        self.api = args.api.rstrip("/")
        self.state_dir = args.state_dir or os.path.join("state", args.sn)
        os.makedirs(os.path.join(self.state_dir, "ota"), exist_ok=True)
        self.state_path = os.path.join(self.state_dir, "device.json")
        self.q: queue.Queue = queue.Queue()
        self.client = None
        self.connected = False
        self.stopping = False
        self.clock_offset_ms = int(args.clock_skew * 1000)  # a wrong clock, for tests
        self.broker = None
        self.disconnected_since = time.monotonic()
        self.next_heartbeat = 0.0
        self.next_telemetry = 0.0
        self.selftest_due = None  # monotonic time the trial's self-test gives its verdict
        self.ota = None  # the upgrade under way (dict persisted in ota/<id>.json)
        self.ota_data = None  # open file of its image
        self.rng = random.Random(args.sn)
        self.state = read_json(self.state_path, {}) or {}
        self._init_state()

    # ---- state ----

    def _init_state(self):
        s = self.state
        if s.get("sn") not in (None, self.sn):
            raise SystemExit(f"{self.state_path} belongs to {s.get('sn')}, not {self.sn}")
        s["sn"] = self.sn
        s.setdefault("productId", self.args.product)
        if self.args.secret:
            s["secret"] = self.args.secret
        s.setdefault("firmwareVersion", self.args.firmware)
        s.setdefault("hardwareVersion", self.args.hardware)
        s.setdefault("config", {"version": "", "values": dict(DEFAULT_CONFIG)})
        parts = {}
        for item in filter(None, (self.args.parts or "").split(",")):
            name, _, rest = item.partition("=")
            ver, _, hw = rest.partition(":")
            parts[name.strip()] = {"version": ver.strip()} | ({"hardware": hw.strip()} if hw else {})
        s.setdefault("parts", parts)
        audio = {}
        for item in filter(None, (self.args.audio or "").split(",")):
            name, _, ver = item.partition("=")
            audio[name.strip()] = ver.strip()
        s.setdefault("audio", audio)
        s.setdefault("otaKeys", [])
        s.setdefault("keySetIssuedAt", 0)
        s.setdefault("heartbeatSeconds", 60)
        s.setdefault("activated", False)
        if self.args.activated:  # the owner activated the bike (simulated)
            s["activated"] = True
        s.setdefault("transportMode", False)
        s.setdefault("locked", True)
        s.setdefault("alarm", False)
        s.setdefault("odometer", round(self.rng.uniform(10, 3000), 1))
        s.setdefault("simUsedMb", 120)
        s.setdefault("pendingReports", [])  # up/ota reports made while offline (e.g. E_BOOT)
        s.setdefault("ended", {})  # upgrade id -> last stage report (QoS 1 duplicates)
        self.save()

    def save(self):
        write_json(self.state_path, self.state)

    def ota_path(self, uid: str, ext: str) -> str:
        return os.path.join(self.state_dir, "ota", f"{uid}.{ext}")

    def save_ota(self):
        if self.ota:
            write_json(self.ota_path(self.ota["id"], "json"), self.ota)

    # ---- clock / HTTP ----

    def now_ms(self) -> int:
        return int(time.time() * 1000) + self.clock_offset_ms

    def http(self, method: str, path: str, body=None, timeout=15):
        url = self.api + path
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(url, data=data, method=method, headers={
            "Content-Type": "application/json", "Accept": "application/json", "Accept-Language": "en"})
        ctx = ssl.create_default_context() if url.startswith("https:") else None
        try:
            with urllib.request.urlopen(req, timeout=timeout, context=ctx) as r:
                return r.status, dict(r.headers), json.loads(r.read() or b"null")
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                payload = json.loads(raw)
            except ValueError:
                payload = {"raw": raw[:200].decode("utf-8", "replace")}
            return e.code, dict(e.headers), payload

    # ---- registration ----

    def register(self):
        """Self-registration; retries what the document says is worth retrying."""
        key, product = self.args.key, self.state.get("productId")
        if not key or not product:
            raise RegistrationError("no secret in the state and no --key/--product to register with")
        pause = 5.0
        while not self.stopping:
            ts, nonce = self.now_ms(), new_nonce()
            body = {"productId": product, "sn": self.sn, "timestamp": ts, "nonce": nonce,
                    "sign": registration_sign(key, product, self.sn, ts, nonce)}
            try:
                status, headers, ans = self.http("POST", "/iot/register", body)
            except (urllib.error.URLError, OSError, ValueError) as e:
                status, headers, ans = 0, {}, {"msg": str(e)}
            data = (ans or {}).get("data") or {}
            reason = data.get("reason") if isinstance(data, dict) else None
            msg = (ans or {}).get("msg")
            log.info("register %s: %s %s %s", self.sn, status, reason or "", msg or "")
            if status == 200:
                self.state["secret"] = data["secret"]
                if data.get("sn") and data["sn"] != self.sn:
                    log.warning("server answered sn %s", data["sn"])
                self.state["mqtt"] = data.get("mqtt") or {}
                self.state["otaKeys"] = [k for k in data.get("otaKeys") or [] if self._key_ok(k)]
                if data.get("heartbeatSeconds"):
                    self.state["heartbeatSeconds"] = int(data["heartbeatSeconds"])
                self.save()
                return
            if status == 429:
                wait = float(headers.get("Retry-After") or headers.get("retry-after") or 5)
                time.sleep(wait)
                continue
            if status == 400 and reason == "E_STALE":
                date = headers.get("Date") or headers.get("date")
                if date:
                    server_ms = int(email.utils.parsedate_to_datetime(date).timestamp() * 1000)
                    self.clock_offset_ms = server_ms - int(time.time() * 1000)
                    log.info("clock set from the server's Date: offset %d ms", self.clock_offset_ms)
                continue
            if status == 409 and reason == "E_REPLAYED":
                continue
            if status == 409 and reason == "E_TAKEN":
                if self.state.get("secret"):
                    return
                raise RegistrationError(f"{self.sn} is taken and this device holds no secret: staff must Reset secret")
            if status == 403 and reason == "E_NOT_ANNOUNCED":
                raise RegistrationError(f"{msg} (staff must announce the serial; retrying later is fine)")
            if status == 0 or status >= 500:
                log.info("registration: retrying in %.0f s", pause)
                time.sleep(pause)
                pause = min(pause * 2, 300)
                continue
            raise RegistrationError(f"registration refused: {status} {reason or ''} {msg or ''} {data.get('errors') or ''}")

    @staticmethod
    def _key_ok(k) -> bool:
        try:
            raw = b64decode(k["publicKey"])
            return len(raw) == 32 and key_id(raw) == k["keyId"]
        except Exception:
            return False

    # ---- where to connect ----

    def resolve_broker(self):
        if self.args.broker:
            return self._parse_broker({"url": self.args.broker})
        mqtt_info = None
        try:
            status, _, ans = self.http("GET", "/iot/broker", timeout=10)
            if status == 200 and isinstance(ans, dict) and isinstance(ans.get("data"), dict):
                d = ans["data"]
                # The document says "the same mqtt object"; the server answers the object itself
                # with heartbeatSeconds beside url/port. Accept {mqtt:{…}} too.
                mqtt_info = d.get("mqtt") if isinstance(d.get("mqtt"), dict) else d
                if d.get("heartbeatSeconds") and not self.state.get("heartbeatFromConfig"):
                    self.state["heartbeatSeconds"] = int(d["heartbeatSeconds"])
        except (urllib.error.URLError, OSError, ValueError) as e:
            log.warning("GET /iot/broker failed: %s; using what registration said", e)
        if mqtt_info is None:
            mqtt_info = self.state.get("mqtt") or {}
        return self._parse_broker(mqtt_info)

    def _parse_broker(self, info: dict):
        if info.get("url"):
            u = urllib.parse.urlsplit(info["url"])
            scheme = u.scheme
            default = {"mqtt": 1883, "mqtts": 8883, "ws": 80, "wss": 443}.get(scheme)
            if default is None:
                raise SystemExit(f"unknown broker scheme {info['url']}")
            return {"host": u.hostname, "port": u.port or default, "tls": scheme in ("mqtts", "wss"),
                    "ws": scheme in ("ws", "wss"), "path": u.path or "/mqtt"}
        if info.get("port"):
            host = urllib.parse.urlsplit(self.api).hostname
            return {"host": host, "port": int(info["port"]), "tls": False, "ws": False, "path": ""}
        return None

    # ---- MQTT plumbing ----

    def topic(self, kind: str) -> str:
        return f"velo/v1/{self.sn}/{kind}"

    def make_client(self, broker):
        kwargs = dict(client_id=self.sn, clean_session=True, protocol=mqtt.MQTTv311,
                      transport="websockets" if broker["ws"] else "tcp")
        def rc_int(rc):  # paho 2.x passes a ReasonCode, 1.6 an int
            return int(getattr(rc, "value", rc))

        if hasattr(mqtt, "CallbackAPIVersion"):  # paho-mqtt 2.x
            c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, **kwargs)
            c.on_connect = lambda cl, ud, flags, rc, props=None: self.q.put(("connected", cl, rc_int(rc)))
            c.on_disconnect = lambda cl, ud, flags, rc, props=None: self.q.put(("disconnected", cl, rc_int(rc)))
        else:  # paho-mqtt 1.6 (Debian 12)
            c = mqtt.Client(**kwargs)
            c.on_connect = lambda cl, ud, flags, rc: self.q.put(("connected", cl, rc_int(rc)))
            c.on_disconnect = lambda cl, ud, rc: self.q.put(("disconnected", cl, rc_int(rc)))
        c.username_pw_set(self.sn, self.state["secret"])
        c.will_set(self.topic("up/presence"), json.dumps({"v": 1, "state": "offline", "reason": "lost"},
                                                         separators=(",", ":")), qos=1, retain=True)
        if broker["tls"]:
            c.tls_set()
        if broker["ws"]:
            c.ws_set_options(path=broker["path"])
        c.reconnect_delay_set(1, 30)
        c.on_message = lambda cl, ud, msg: self.q.put(("message", cl, msg.topic, msg.payload))
        return c

    def connect(self):
        self.broker = self.resolve_broker()
        if not self.broker:
            log.error("the server names no broker (external broker without a public address); retrying in 60 s")
            return False
        log.info("connecting to %s:%s%s as %s", self.broker["host"], self.broker["port"],
                 " (TLS)" if self.broker["tls"] else "", self.sn)
        self.client = self.make_client(self.broker)
        self.client.connect_async(self.broker["host"], self.broker["port"], keepalive=self.args.keepalive)
        self.client.loop_start()
        return True

    def disconnect(self):
        c, self.client = self.client, None
        self.connected = False
        if c is not None:
            try:
                c.disconnect()
            finally:
                c.loop_stop()

    def publish(self, kind: str, payload: dict, qos: int = 0, retain: bool = False):
        if not self.client or not self.connected:
            log.debug("not connected: %s dropped", kind)
            return None
        text = json.dumps(payload, separators=(",", ":"))
        log.debug("-> %s %s", kind, text)
        return self.client.publish(self.topic(kind), text, qos=qos, retain=retain)

    def presence(self, state: str, reason: str | None = None):
        p = {"v": 1, "state": state} | ({"reason": reason} if reason else {})
        return self.publish("up/presence", p, qos=1, retain=True)

    # ---- what the module reports ----

    def status_payload(self) -> dict:
        s = self.state
        p = {"v": 1, "ts": self.now_ms(), "firmwareVersion": s["firmwareVersion"],
             "hardwareVersion": s["hardwareVersion"], "configVersion": s["config"]["version"],
             "activated": bool(s["activated"]), "transportMode": bool(s["transportMode"]),
             "config": {"version": s["config"]["version"], "values": s["config"]["values"]}}
        if self.args.iccid:
            p["sim"] = {"iccid": self.args.iccid, "imei": self.args.imei, "usedMb": s["simUsedMb"],
                        "limitMb": self.args.sim_limit_mb}
            if not self.args.imei:
                del p["sim"]["imei"]
        if s["parts"]:
            p["parts"] = s["parts"]
        if s["audio"]:
            p["audio"] = s["audio"]
        return p

    def send_status(self):
        self.publish("up/status", self.status_payload(), qos=1)

    def battery(self) -> float:
        return float(self.args.battery)

    def send_telemetry(self):
        s = self.state
        riding = self.args.riding
        speed = round(self.rng.uniform(12, 25), 1) if riding else 0
        s["odometer"] = round(s["odometer"] + (speed * self.args.telemetry_seconds / 3600), 2)
        t = {"v": 1, "ts": self.now_ms(), "battery": self.battery(), "signal": self.rng.randint(-95, -60),
             "gps": {"lat": round(52.3702 + self.rng.uniform(-0.01, 0.01), 5),
                     "lng": round(4.8952 + self.rng.uniform(-0.01, 0.01), 5), "speed": speed,
                     "satellites": self.rng.randint(6, 12)},
             "odometer": s["odometer"], "locked": bool(s["locked"]), "tilt": self.rng.randint(0, 6),
             "vibration": 1 if riding else 0}
        self.publish("up/telemetry", t)
        self.next_telemetry = time.monotonic() + self.args.telemetry_seconds

    def ota_report(self, uid: str, stage: str, **extra):
        p = {"v": 1, "id": uid, "stage": stage} | {k: v for k, v in extra.items() if v is not None}
        if "message" in p:
            p["message"] = str(p["message"])[:500]
        log.info("OTA %s: %s %s", uid, stage, " ".join(f"{k}={v}" for k, v in extra.items() if v is not None))
        if self.connected:
            self.publish("up/ota", p, qos=1)
        else:
            self.state["pendingReports"].append(p)
            self.save()
        return p

    def reply(self, cid: str, status: str, code: int | None = None, message: str | None = None,
              result: dict | None = None):
        p = {"v": 1, "id": cid, "status": status}
        if code is not None:
            p["code"] = code
        if message:
            p["message"] = message[:500]
        if result is not None:
            p["result"] = result
        log.info("reply %s %s %s %s", cid, status, code if code is not None else "", message or "")
        return self.publish("up/reply", p, qos=1)

    # ---- boot / main loop ----

    def run(self):
        if not self.state.get("secret"):
            self.register()
        self.boot()
        deadline = time.monotonic() + self.args.run_seconds if self.args.run_seconds else None
        while not self.stopping:
            try:
                ev = self.q.get(timeout=0.2)
            except queue.Empty:
                ev = None
            if ev:
                try:
                    self.handle_event(ev)
                except Exception:
                    log.exception("handling %s", ev[0])
            self.tick()
            if deadline and time.monotonic() > deadline:
                log.info("--run-seconds reached")
                self.shutdown()
        self.save()

    def boot(self):
        """What a (re)started module does before it connects: finish an interrupted upgrade step."""
        self.selftest_due = None
        uid = self.state.get("otaCurrent")
        self.ota = read_json(self.ota_path(uid, "json")) if uid else None
        if uid and not self.ota:
            self.state["otaCurrent"] = None
        if self.ota:  # what belonged to the previous run
            for k in ("_http", "_httpTried", "_next_req", "_asked", "window"):
                self.ota.pop(k, None)
        if self.ota and self.ota.get("stage") == "rebooting" and self.ota["part"] == "iot":
            # The bootloader starts the new image on trial (or, with --fail-boot, cannot).
            if self.args.fail_boot:
                log.warning("simulated: new image %s does not boot; bootloader goes back to %s",
                            self.ota["version"], self.ota["previousVersion"])
                self.state["firmwareVersion"] = self.ota["previousVersion"]
                self.end_ota("rolledBack", code="E_BOOT", message="The new image did not boot",
                             version=self.ota["previousVersion"])
            else:
                self.state["firmwareVersion"] = self.ota["version"]
                self.ota["stage"] = "bootedTrial"
                self.save_ota()
        self.save()
        if not self.connect():
            time.sleep(60)
            return self.boot()

    def tick(self):
        now = time.monotonic()
        if self.connected:
            if now >= self.next_heartbeat:
                self.publish("up/heartbeat", {"v": 1, "ts": self.now_ms()})
                self.next_heartbeat = now + max(5, int(self.state["heartbeatSeconds"]))
            if now >= self.next_telemetry:
                self.send_telemetry()
        elif self.client and now - self.disconnected_since > 20:
            # The embedded broker may have taken another port at a server restart: ask again.
            try:
                broker = self.resolve_broker()
            except SystemExit:
                broker = None
            self.disconnected_since = now
            if broker and self.broker and (broker["host"], broker["port"]) != (self.broker["host"], self.broker["port"]):
                log.info("broker moved to %s:%s", broker["host"], broker["port"])
                self.disconnect()
                self.connect()
        self.ota_tick(now)
        if self.selftest_due and now >= self.selftest_due:
            self.selftest_due = None
            self.trial_verdict()
        if getattr(self, "reboot_due", None) and now >= self.reboot_due:
            self.reboot_due = None
            self.reboot("reboot")

    def handle_event(self, ev):
        kind, client = ev[0], ev[1]
        if kind in ("httpBlock", "httpDone"):
            return self.on_http_event(ev)
        if client is not self.client:
            return  # a stale client's event
        if kind == "connected":
            rc = ev[2]
            if rc != 0:
                log.error("CONNECT refused, return code %s%s", rc,
                          " (not authorized: wrong secret, unknown SN or a bad will)" if rc in (5, 135) else "")
                return
            self.on_connected()
        elif kind == "disconnected":
            if self.connected:
                log.warning("disconnected (rc %s)", ev[2])
            self.connected = False
            self.disconnected_since = time.monotonic()
        elif kind == "message":
            self.on_message(ev[2], ev[3])

    def on_connected(self):
        log.info("connected as %s", self.sn)
        self.connected = True
        self.client.subscribe(self.topic("down/#"), qos=1)
        self.presence("online")
        for p in self.state["pendingReports"]:  # e.g. rolledBack E_BOOT, before the first status
            self.publish("up/ota", p, qos=1)
        self.state["pendingReports"] = []
        self.save()
        self.send_status()
        self.send_telemetry()
        self.next_heartbeat = time.monotonic() + max(5, int(self.state["heartbeatSeconds"]))
        if self.args.fault:
            code, _, message = self.args.fault.partition(":")
            self.publish("up/event", {"v": 1, "ts": self.now_ms(), "type": "fault", "code": code}
                         | ({"message": message} if message else {}), qos=1)
        self.ota_on_connect()

    def reboot(self, reason="reboot"):
        log.info("rebooting")
        self.wait_published(self.presence("offline", reason), 5)
        self.disconnect()
        self.close_ota_file()
        time.sleep(self.args.reboot_seconds)
        self.boot()

    @staticmethod
    def wait_published(info, seconds):
        """paho 1.6's wait_for_publish has no timeout: poll is_published instead."""
        end = time.monotonic() + seconds
        while info is not None and time.monotonic() < end:
            try:
                if info.is_published():
                    return True
            except Exception:
                return False
            time.sleep(0.05)
        return False

    def shutdown(self, *_):
        if self.stopping:
            return
        self.stopping = True
        self.close_ota_file()
        self.wait_published(self.presence("offline", "shutdown"), 3)
        self.disconnect()
        self.close_ota_file()

    # ---- messages ----

    def on_message(self, topic: str, payload: bytes):
        kind = topic[len(self.topic("")):] if topic.startswith(self.topic("")) else None
        if kind == "down/otaBlock":
            return self.on_block(payload)
        try:
            msg = json.loads(payload)
        except ValueError:
            log.warning("dropped a non-JSON message on %s", topic)
            return
        if not isinstance(msg, dict):
            return
        log.debug("<- %s %s", kind, payload[:300])
        if msg.get("v") != PROTOCOL:
            log.warning("dropped a message of protocol version %r", msg.get("v"))
            return
        if kind == "down/command":
            self.on_command(msg)
        elif kind == "down/ota":
            if msg.get("ota") != OTA_GENERATION:
                log.warning("ignored an OTA message of generation %r", msg.get("ota"))
                return
            op = msg.get("op")
            if op == "offer":
                self.on_offer(msg)
            elif op == "abort":
                self.on_abort(msg)
            elif op == "keys":
                self.take_key_set(msg.get("keys"), msg.get("signatures"), "key update")

    # ---- commands ----

    def on_command(self, cmd: dict):
        cid = cmd.get("id")
        if not isinstance(cid, str) or not cid:
            log.warning("command without id: no answer")
            return
        name = cmd.get("name")
        params = cmd.get("params") or {}
        log.info("command %s %s %s", cid, name, json.dumps(params))
        exp = cmd.get("expiresAt")
        if isinstance(exp, (int, float)) and self.now_ms() > exp:
            return self.reply(cid, "expired")
        supported = {"ping", "reboot", "report", "setConfig"} | set(self.functions())
        if name not in supported:
            return self.reply(cid, "failed", 404, f"Unknown command {name}")
        if not isinstance(params, dict):
            return self.reply(cid, "failed", 400, "params is not an object")
        handler = getattr(self, "cmd_" + name)
        handler(cid, params)

    def functions(self):
        if self.args.functions is None:
            return FUNCTION_COMMANDS
        return [f for f in self.args.functions.split(",") if f in FUNCTION_COMMANDS]

    @staticmethod
    def int_param(params, name, lo, hi):
        """None when absent; raises ValueError when present but not a whole number in range."""
        if name not in params or params[name] is None:
            return None
        v = params[name]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or int(v) != v or not lo <= v <= hi:
            raise ValueError(f"{name} must be a whole number {lo}–{hi}")
        return int(v)

    def cmd_ping(self, cid, params):
        self.reply(cid, "succeeded", 0)

    def cmd_report(self, cid, params):
        self.send_status()
        self.send_telemetry()
        self.reply(cid, "succeeded", 0)

    def cmd_reboot(self, cid, params):
        try:
            delay = self.int_param(params, "delaySeconds", 0, 300) or 0
        except ValueError as e:
            return self.reply(cid, "failed", 400, str(e))
        if self.ota and self.ota.get("stage") in ("installing",):
            return self.reply(cid, "failed", 409, "Installing an upgrade: try again later")
        self.reply(cid, "accepted")
        self.reply(cid, "succeeded", 0)
        self.reboot_due = time.monotonic() + delay

    def cmd_setConfig(self, cid, params):
        values = params.get("values")
        version = params.get("version")
        if not isinstance(values, dict) or (version is not None and not isinstance(version, (str, int))):
            return self.reply(cid, "failed", 400, "setConfig needs values (an object) and version (text)")
        if self.args.riding:
            return self.reply(cid, "failed", 409, "Riding: try again when parked")
        if self.ota and self.ota.get("stage") in ("installing", "rebooting"):
            return self.reply(cid, "failed", 409, "Busy installing an upgrade")
        new = {}
        for name, raw in values.items():
            spec = SETTINGS.get(name)
            if spec is None:
                return self.reply(cid, "failed", 422, f"Setting {name} is not supported")
            kind = spec[0]
            v = raw
            if kind == "int":
                if isinstance(v, str) and re.fullmatch(r"-?\d+", v.strip()):
                    v = int(v.strip())  # "3" equals 3
                if isinstance(v, bool) or not isinstance(v, (int, float)) or int(v) != v:
                    return self.reply(cid, "failed", 422, f"{name} must be a whole number")
                v = int(v)
                if not spec[1] <= v <= spec[2]:
                    return self.reply(cid, "failed", 422, f"{name} {v} is out of range {spec[1]}–{spec[2]}")
            elif kind == "bool":
                if not isinstance(v, bool):
                    return self.reply(cid, "failed", 422, f"{name} must be true or false")
            elif kind == "str":
                if not isinstance(v, str):
                    return self.reply(cid, "failed", 422, f"{name} must be text")
            new[name] = v
        cfg = self.state["config"]
        cfg["values"] = cfg["values"] | new
        if version is not None:
            cfg["version"] = str(version)
        if "heartbeatSeconds" in new:
            self.state["heartbeatSeconds"] = new["heartbeatSeconds"]
            self.state["heartbeatFromConfig"] = True
            self.next_heartbeat = min(self.next_heartbeat, time.monotonic() + new["heartbeatSeconds"])
        self.save()
        self.send_status()
        self.reply(cid, "succeeded", 0, result={"configVersion": cfg["version"], "values": cfg["values"]})

    def cmd_lock(self, cid, params):
        self.state["locked"] = True
        self.save()
        self.reply(cid, "succeeded", 0)
        self.send_telemetry()

    def cmd_unlock(self, cid, params):
        self.state["locked"] = False
        self.save()
        self.reply(cid, "succeeded", 0)
        self.send_telemetry()

    def cmd_findBike(self, cid, params):
        try:
            secs = self.int_param(params, "seconds", 1, 60) or 10
        except ValueError as e:
            return self.reply(cid, "failed", 400, str(e))
        log.info("beeping and flashing for %d s", secs)
        self.reply(cid, "succeeded", 0)

    def cmd_locate(self, cid, params):
        lat = round(52.3702 + self.rng.uniform(-0.01, 0.01), 5)
        lng = round(4.8952 + self.rng.uniform(-0.01, 0.01), 5)
        self.send_telemetry()
        self.reply(cid, "succeeded", 0, result={"lat": lat, "lng": lng})

    def _bool_cmd(self, cid, params, key):
        v = params.get("enabled")
        if not isinstance(v, bool):
            return self.reply(cid, "failed", 400, "enabled must be true or false")
        self.state[key] = v
        self.save()
        self.reply(cid, "succeeded", 0)
        if key == "transportMode":
            self.send_status()

    def cmd_setAlarm(self, cid, params):
        self._bool_cmd(cid, params, "alarm")

    def cmd_transportMode(self, cid, params):
        self._bool_cmd(cid, params, "transportMode")

    def cmd_playAudio(self, cid, params):
        name = params.get("audio")
        if not isinstance(name, str) or not name:
            return self.reply(cid, "failed", 400, "audio (a name) is required")
        if name not in self.state["audio"]:
            return self.reply(cid, "failed", 500, f"No audio file {name} on this module")
        log.info("playing %s", name)
        self.reply(cid, "succeeded", 0)

    # ---- OTA keys ----

    def trusted_keys(self) -> dict:
        return {k["keyId"]: b64decode(k["publicKey"]) for k in self.state["otaKeys"] if self._key_ok(k)}

    def take_key_set(self, keys_text, signatures, source: str, tofu: bool = False) -> bool:
        if not isinstance(keys_text, str) or not isinstance(signatures, list):
            return False
        try:
            ks = json.loads(keys_text)
            keys = ks["keys"]
            issued = int(ks["issuedAt"])
            assert ks.get("format") == 1 and isinstance(keys, list) and keys
        except Exception:
            log.warning("%s: malformed key set ignored", source)
            return False
        if not all(isinstance(k, dict) and self._key_ok(k) for k in keys):
            log.warning("%s: a keyId is not its key's id; ignored", source)
            return False
        verifiers = self.trusted_keys()
        if tofu and not verifiers:
            verifiers = {k["keyId"]: b64decode(k["publicKey"]) for k in keys}
        ok = any(isinstance(s, dict) and s.get("keyId") in verifiers and
                 ed25519_verify(verifiers[s["keyId"]], keys_text.encode("utf-8"), b64decode(s.get("signature", "")))
                 for s in signatures)
        if not ok:
            log.warning("%s: signed by no key this device trusts; ignored", source)
            return False
        if issued < int(self.state.get("keySetIssuedAt") or 0):
            log.warning("%s: older than the set held; ignored", source)
            return False
        self.state["otaKeys"] = [{"keyId": k["keyId"], "publicKey": k["publicKey"]} for k in keys]
        self.state["keySetIssuedAt"] = issued
        self.save()
        log.info("%s: now trusting %s", source, ", ".join(k["keyId"] for k in keys))
        return True

    def fetch_key_set(self) -> bool:
        try:
            status, _, ans = self.http("GET", "/iot/ota-keys", timeout=10)
        except (urllib.error.URLError, OSError, ValueError) as e:
            log.warning("GET /iot/ota-keys: %s", e)
            return False
        if status != 200:
            return False
        d = ans.get("data") or {}
        tofu = not self.state["otaKeys"]
        if tofu and not self.api.startswith("https:"):
            log.warning("taking the first key set over plain HTTP (test setups only)")
        return self.take_key_set(d.get("keys"), d.get("signatures"), "GET /iot/ota-keys", tofu=tofu)

    # ---- OTA: offers ----

    def part_info(self, part: str, payload: str, name: str | None):
        """(present, running version, hardware, supplier, product) of what an offer targets."""
        if payload == "audio":
            return True, self.state["audio"].get(name or ""), None, None, None
        if part == "iot":
            return (True, self.state["firmwareVersion"], self.state["hardwareVersion"],
                    self.args.supplier, self.args.product_code)
        p = self.state["parts"].get(part)
        if not p:
            return False, None, None, None, None
        return True, p.get("version"), p.get("hardware"), None, None

    def on_offer(self, offer: dict):
        uid = offer.get("id")
        if not isinstance(uid, str) or not ID_RE.match(uid):
            log.warning("offer without a valid id ignored")
            return
        # A QoS 1 duplicate: carry on / repeat the stage reached.
        if self.ota and self.ota["id"] == uid:
            log.info("offer %s again (duplicate): repeating stage %s", uid, self.ota["stage"])
            if self.ota.get("lastReport"):
                self.publish("up/ota", self.ota["lastReport"], qos=1)
            return
        if uid in self.state["ended"]:
            self.publish("up/ota", self.state["ended"][uid], qos=1)
            return
        required = ("part", "version", "size", "sha256", "blockBytes", "blocks", "manifest", "signature", "keyId")
        if any(k not in offer for k in required[:6]):
            log.warning("offer %s lacks fields; ignored", uid)
            return
        payload = offer.get("payload", "firmware")
        part = offer["part"]
        # 1-3: the signed manifest, before accepting or refusing.
        keys = self.trusted_keys()
        kid = offer.get("keyId")
        if kid not in keys:
            self.fetch_key_set()
            keys = self.trusted_keys()
        if kid not in keys:
            return self.finish_offer(uid, "failed", code="E_KEY_UNKNOWN", message=f"No trusted key {kid}")
        try:
            sig = b64decode(offer.get("signature") or "")
        except (binascii.Error, ValueError):
            sig = b""
        manifest = offer.get("manifest")
        if not isinstance(manifest, str) or not ed25519_verify(keys[kid], manifest.encode("utf-8"), sig):
            return self.finish_offer(uid, "failed", code="E_SIGNATURE", message="The manifest signature does not verify")
        present, running, hw, supplier, product = self.part_info(part, payload, offer.get("name"))
        problem = check_manifest(offer, manifest, {"version": running or "", "hardware": hw,
                                                   "supplier": supplier, "product": product})
        if problem:
            return self.finish_offer(uid, "failed", code="E_MANIFEST", message=problem)
        # Refusals.
        if self.ota:
            return self.finish_offer(uid, "rejected", code="busy", message=f"Upgrade {self.ota['id']} under way")
        if not present or part not in PARTS or payload not in ("firmware", "audio"):
            return self.finish_offer(uid, "rejected", code="incompatible", message=f"No {part} on this bike")
        if running == offer["version"]:
            what = f"audio {offer.get('name')}" if payload == "audio" else part
            return self.finish_offer(uid, "rejected", code="incompatible",
                                     message=f"{what} already runs {running}")
        if self.args.riding:
            return self.finish_offer(uid, "rejected", code="riding")
        if offer.get("minBattery") is not None and self.battery() < offer["minBattery"]:
            return self.finish_offer(uid, "rejected", code="batteryLow",
                                     message=f"Battery {self.battery()} % below {offer['minBattery']} %")
        if self.args.iccid:
            left_mb = self.args.sim_limit_mb - self.state["simUsedMb"]
            if left_mb * 1024 * 1024 < int(offer["size"]):
                return self.finish_offer(uid, "rejected", code="simDataLow", message=f"{left_mb} MB left")
        # Accept.
        bb, blocks, size = int(offer["blockBytes"]), int(offer["blocks"]), int(offer["size"])
        if not (1024 <= bb <= 65536) or blocks != -(-size // bb):
            return self.finish_offer(uid, "failed", code="E_OFFER", message="blockBytes/blocks do not fit size")
        self.ota = {"id": uid, "offer": offer, "part": part, "payload": payload, "name": offer.get("name"),
                    "version": offer["version"], "previousVersion": running, "size": size,
                    "blockBytes": bb, "blocks": blocks, "have": "0" * blocks, "stage": "accepted",
                    "offeredAt": int(time.time() * 1000), "reported": -1,
                    "commitSeconds": int(offer.get("commitSeconds") or 300),
                    "timeoutSeconds": int(offer.get("timeoutSeconds") or 1800)}
        self.state["otaCurrent"] = uid
        self.save()
        with open(self.ota_path(uid, "bin"), "wb") as f:
            f.truncate(size)
        self.stage("accepted")
        self.stage("downloading", progress=0)
        self.ota["reported"] = 0
        self.save_ota()
        self.start_download()

    def finish_offer(self, uid, stage, **extra):
        p = self.ota_report(uid, stage, **extra)
        self.remember_ended(uid, p)

    def remember_ended(self, uid, report):
        ended = self.state["ended"]
        ended[uid] = report
        while len(ended) > 20:
            ended.pop(next(iter(ended)))
        self.save()

    def stage(self, stage: str, **extra):
        self.ota["stage"] = stage
        self.ota["lastReport"] = self.ota_report(self.ota["id"], stage, **extra)
        self.save_ota()

    def end_ota(self, stage: str, **extra):
        """Report the upgrade's last stage and forget its download."""
        uid = self.ota["id"]
        p = self.ota_report(uid, stage, **extra)
        self.remember_ended(uid, p)
        self.close_ota_file()
        for ext in ("json", "bin"):
            try:
                os.remove(self.ota_path(uid, ext))
            except OSError:
                pass
        self.ota = None
        self.state["otaCurrent"] = None
        self.save()

    def on_abort(self, msg: dict):
        uid = msg.get("id")
        if self.ota and self.ota["id"] == uid:
            if self.ota["stage"] in ("accepted", "downloading", "downloaded", "verified"):
                log.info("abort %s (%s)", uid, msg.get("reason"))
                self.end_ota("aborted")
            else:
                log.info("abort %s ignored: already %s", uid, self.ota["stage"])
        elif uid not in self.state["ended"]:
            if isinstance(uid, str) and ID_RE.match(uid):
                self.finish_offer(uid, "aborted")

    # ---- OTA: blocks ----

    def close_ota_file(self):
        if self.ota_data:
            self.ota_data.close()
            self.ota_data = None

    def first_missing(self):
        i = self.ota["have"].find("0")
        return None if i < 0 else i

    def request_window(self, first=None):
        o = self.ota
        if first is None:
            first = self.first_missing()
        if first is None:
            return
        end = min(first + max(1, min(self.args.window, 32)), o["blocks"])
        # End the window at its last missing block: blocks already held are not fetched again.
        count = max(i for i in range(first, end) if o["have"][i] == "0") - first + 1
        o["window"] = list(range(first, first + count))
        o["_asked"] = time.monotonic()
        self.publish("up/otaReq", {"v": 1, "id": o["id"], "first": first, "count": count, "blockBytes": o["blockBytes"]})

    def on_block(self, payload: bytes):
        nl = payload.find(b"\n")
        if nl < 0:
            return
        try:
            head = json.loads(payload[:nl])
        except ValueError:
            return
        o = self.ota
        if not o or head.get("id") != o["id"] or o["stage"] != "downloading":
            return
        if "error" in head:
            log.warning("OTA %s: error frame %s (first %s)", o["id"], head.get("error"), head.get("first"))
            o["_errors"] = o.get("_errors", 0) + 1
            if o["_errors"] > 10:
                return self.end_ota("failed", code="E_BLOCK_REQUEST", message=f"Server refuses block requests: {head.get('error')}")
            o["window"] = []
            self.request_window()
            return
        n, crc, size = head.get("n"), head.get("crc8"), head.get("size")
        data = payload[nl + 1:]
        if not isinstance(n, int) or not 0 <= n < o["blocks"]:
            return
        expect = o["blockBytes"] if n < o["blocks"] - 1 else o["size"] - n * o["blockBytes"]
        window = o.get("window") or []
        if n in window:
            window.remove(n)
        o["_asked"] = time.monotonic()
        damaged = self.args.damage_every and self.rng.randrange(self.args.damage_every) == 0
        try:
            crc_ok = int(crc, 16) == crc8_smbus(data)
        except (TypeError, ValueError):
            crc_ok = False
        if size != len(data) or len(data) != expect or damaged or not crc_ok:
            log.info("OTA %s: block %d dropped (%s)", o["id"], n,
                     "simulated damage" if damaged else "CRC or size wrong")
        else:
            self.store_block(n, data)
        if self.first_missing() is None:
            if self.ota_data:
                self.ota_data.flush()
                os.fsync(self.ota_data.fileno())
            self.close_ota_file()
            self.save_ota()
            return self.after_download()
        if not window:
            if self.ota_data:  # the bytes before the bitmap that says they are there
                self.ota_data.flush()
                os.fsync(self.ota_data.fileno())
            self.save_ota()  # a drop costs at most the window in flight
            if self.args.drop_after_blocks and o["have"].count("1") >= self.args.drop_after_blocks and not o.get("_dropped"):
                o["_dropped"] = True
                self.save_ota()
                log.warning("simulated: connection drops mid-download")
                self.simulate_drop()
                return
            if self.args.window_pause:
                o["_next_req"] = time.monotonic() + self.args.window_pause
            else:
                self.request_window()

    def store_block(self, n: int, data: bytes):
        o = self.ota
        if o["have"][n] != "0":
            return
        if self.ota_data is None:
            self.ota_data = open(self.ota_path(o["id"], "bin"), "r+b")
        self.ota_data.seek(n * o["blockBytes"])
        self.ota_data.write(data)
        o["have"] = o["have"][:n] + "1" + o["have"][n + 1:]
        got = o["have"].count("1")
        pct = 100 * min(o["size"], got * o["blockBytes"]) // o["size"]
        if got < o["blocks"] and pct // 10 > o["reported"] // 10:
            o["reported"] = pct
            o["lastReport"] = self.ota_report(o["id"], "downloading", progress=pct)

    def start_download(self):
        """Fetch what is missing: over the offer's HTTPS link while it is valid (--https), else MQTT blocks."""
        o = self.ota
        o["window"] = []
        o["_next_req"] = None
        url = o["offer"].get("url")
        if self.args.https and url and not o.get("_httpTried") and \
                int(o["offer"].get("urlExpiresAt") or 0) - self.now_ms() > 5000:
            o["_httpTried"] = True  # one try per boot: when it breaks, MQTT blocks finish
            self.http_fetch(url)
        else:
            self.request_window()

    def http_fetch(self, rel_url: str):
        o = self.ota
        uid, bb, size, sha = o["id"], o["blockBytes"], o["size"], o["offer"]["sha256"].lower()
        first = self.first_missing()
        start = first * bb
        api = urllib.parse.urlsplit(self.api)
        url = urllib.parse.urljoin(f"{api.scheme}://{api.netloc}/", rel_url)
        o["_http"] = True
        log.info("OTA %s: downloading over HTTPS from byte %d", uid, start)

        def worker():
            ok, why = False, ""
            try:
                req = urllib.request.Request(url, headers={"Range": f"bytes={start}-", "If-Range": f'"{sha}"'})
                ctx = ssl.create_default_context() if url.startswith("https:") else None
                with urllib.request.urlopen(req, timeout=30, context=ctx) as r:
                    etag = (r.headers.get("ETag") or "").strip().strip('"').lower()
                    if etag != sha:
                        raise ValueError(f"ETag {etag!r} is not the offer's sha256")
                    if r.status == 206:
                        m = re.fullmatch(r"bytes (\d+)-(\d+)/(\d+)", r.headers.get("Content-Range") or "")
                        if not m or int(m[1]) != start or int(m[2]) != size - 1 or int(m[3]) != size:
                            raise ValueError(f"Content-Range {r.headers.get('Content-Range')!r} is not what was asked")
                        offset = start
                    elif r.status == 200:
                        offset = 0  # the whole image
                    else:
                        raise ValueError(f"HTTP {r.status}")
                    n = offset // bb
                    while True:
                        chunk = r.read(bb)
                        if not chunk:
                            break
                        self.q.put(("httpBlock", None, uid, n, chunk))
                        n += 1
                        offset += len(chunk)
                        if self.args.https_cut and offset >= self.args.https_cut:
                            raise ValueError(f"simulated: link broken after {offset} bytes")
                    ok = offset == size
                    why = "" if ok else f"ended at byte {offset}"
            except urllib.error.HTTPError as e:
                why = f"HTTP {e.code}"
            except Exception as e:
                why = str(e)
            self.q.put(("httpDone", None, uid, ok, why))

        threading.Thread(target=worker, daemon=True).start()

    def on_http_event(self, ev):
        o = self.ota
        if not o or o["id"] != ev[2] or o["stage"] != "downloading":
            return
        if ev[0] == "httpBlock":
            n, data = ev[3], ev[4]
            expect = o["blockBytes"] if n < o["blocks"] - 1 else o["size"] - n * o["blockBytes"]
            if 0 <= n < o["blocks"] and len(data) == expect:
                self.store_block(n, data)
            if self.first_missing() is None:
                o["_http"] = False
                if self.ota_data:
                    self.ota_data.flush()
                    os.fsync(self.ota_data.fileno())
                self.close_ota_file()
                self.save_ota()
                self.after_download()
            return
        o["_http"] = False
        if self.ota_data:
            self.ota_data.flush()
            os.fsync(self.ota_data.fileno())
        self.save_ota()
        if self.first_missing() is not None:
            log.info("OTA %s: HTTPS stopped (%s); MQTT blocks from block %s", o["id"], ev[4] or "incomplete", self.first_missing())
            self.request_window()

    def simulate_drop(self):
        """Lose the connection without a clean disconnect (the broker publishes the will)."""
        sock = self.client.socket() if self.client else None
        try:
            sock.shutdown(socket.SHUT_RDWR)  # paho sees the connection lost and reconnects
        except Exception:
            pass

    def ota_tick(self, now):
        o = self.ota
        if not o:
            return
        if o["stage"] in ("accepted", "downloading", "downloaded", "verified") and \
                int(time.time() * 1000) - o["offeredAt"] > o["timeoutSeconds"] * 1000 + 60_000:
            log.warning("OTA %s: past its timeoutSeconds; giving it up", o["id"])
            return self.end_ota("failed", code="E_TIMEOUT", message="Download did not finish within timeoutSeconds")
        if o["stage"] == "downloading" and self.connected and o.get("_next_req"):
            if now >= o["_next_req"]:
                o["_next_req"] = None
                self.request_window()
        elif o["stage"] == "downloading" and self.connected and not o.get("_http") and \
                now - o.get("_asked", 0) > self.args.block_timeout:
            log.info("OTA %s: blocks did not come; asking again from block %s", o["id"], self.first_missing())
            self.request_window()
        if o["stage"] == "trial" and o.get("trialDeadline") and time.time() * 1000 > o["trialDeadline"]:
            self.rollback("E_COMMIT_TIMEOUT", "No self-test verdict within commitSeconds")

    def ota_on_connect(self):
        o = self.ota
        if not o:
            return
        st = o["stage"]
        if st in ("accepted", "downloading"):
            if st == "accepted":
                self.stage("downloading", progress=0)
            log.info("OTA %s: resuming from block %s", o["id"], self.first_missing())
            self.start_download()
        elif st in ("downloaded", "verified", "installing"):
            self.after_download()
        elif st == "rebooting" and o["part"] != "iot":
            self.part_rebooted()
        elif st == "bootedTrial":
            self.start_trial()
        elif st == "trial":
            self.start_trial(again=True)

    # ---- OTA: verify, install, trial ----

    def after_download(self):
        o = self.ota
        if o["stage"] == "downloading":
            self.stage("downloaded", progress=100)
        h = hashlib.sha256()
        with open(self.ota_path(o["id"], "bin"), "rb") as f:
            size = 0
            for chunk in iter(lambda: f.read(65536), b""):
                h.update(chunk)
                size += len(chunk)
        manifest = json.loads(o["offer"]["manifest"])
        if h.hexdigest() != str(manifest["sha256"]).lower() or size != manifest["size"]:
            return self.end_ota("failed", code="E_VERIFY_SHA256", message="SHA-256 mismatch")
        if o["stage"] != "installing":
            self.stage("verified")
        self.stage("installing")
        time.sleep(self.args.install_seconds)  # "flashing"
        if self.args.fail_flash:
            return self.end_ota("failed", code="E_FLASH_WRITE", message="Simulated flash write error")
        if o["payload"] == "audio":
            self.state["audio"][o["name"]] = o["version"]
            self.save()
            self.send_status()
            log.info("OTA %s: audio %s %s installed", o["id"], o["name"], o["version"])
            p = o["lastReport"]
            self.remember_ended(o["id"], p)
            self.close_ota_file()
            for ext in ("json", "bin"):
                try:
                    os.remove(self.ota_path(o["id"], ext))
                except OSError:
                    pass
            self.ota = None
            self.state["otaCurrent"] = None
            self.save()
            return
        self.stage("rebooting")
        if o["part"] == "iot":
            self.reboot("reboot")  # boot() starts the new image on trial
        else:
            self.part_rebooted()

    def part_rebooted(self):
        """A display, BMS or ECU restarted with its new image: it runs on trial."""
        o = self.ota
        time.sleep(1)
        self.state["parts"][o["part"]]["version"] = o["version"]
        self.save()
        o["stage"] = "bootedTrial"
        self.save_ota()
        self.start_trial()

    def start_trial(self, again=False):
        o = self.ota
        if o["part"] != "iot":
            self.send_status()  # parts carries the part's new version
        if not again:
            o["trialDeadline"] = int(time.time() * 1000) + o["commitSeconds"] * 1000
            self.stage("trial", version=o["version"])
        elif o.get("trialDeadline") and time.time() * 1000 > o["trialDeadline"]:
            return self.rollback("E_COMMIT_TIMEOUT", "No self-test verdict within commitSeconds")
        log.info("OTA %s: self-test runs (%s s)", o["id"], self.args.self_test_seconds)
        self.selftest_due = time.monotonic() + self.args.self_test_seconds

    def trial_verdict(self):
        o = self.ota
        if not o or o["stage"] != "trial":
            return
        if time.time() * 1000 > o["trialDeadline"]:
            return self.rollback("E_COMMIT_TIMEOUT", "No self-test verdict within commitSeconds")
        ok = self.connected and not self.args.fail_self_test
        if ok:
            self.end_ota("committed", version=o["version"])
        else:
            self.rollback("E_SELF_TEST", "Simulated self-test failure" if self.args.fail_self_test
                          else "Could not reach the server")

    def rollback(self, code, message):
        o = self.ota
        prev = o["previousVersion"]
        part = o["part"]
        self.end_ota("rolledBack", code=code, message=message, version=prev)
        if part == "iot":
            self.state["firmwareVersion"] = prev
            self.save()
            self.reboot("reboot")
        else:
            self.state["parts"][part]["version"] = prev
            self.save()
            self.send_status()


# --------------------------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description="A minimal Velo bike IoT module (protocol v1, OTA generation 2)")
    ap.add_argument("--api", default="http://localhost:8080/api", help="API base URL (with /api)")
    ap.add_argument("--sn", help="serial number, e.g. VL000123")
    ap.add_argument("--product", help="the model's product id, e.g. VELO-4G")
    ap.add_argument("--key", help="the model's registration key (self-registration)")
    ap.add_argument("--secret", help="a secret from the console instead of self-registration")
    ap.add_argument("--broker", help="broker URL override: mqtt://host:port, mqtts://, ws://, wss://")
    ap.add_argument("--state-dir", help="where the 'flash' is kept (default ./state/<SN>)")
    ap.add_argument("--telemetry-seconds", type=float, default=30)
    ap.add_argument("--keepalive", type=int, default=30, help="MQTT keepalive, 30-60 s")
    ap.add_argument("--firmware", default="1.0.0", help="firmware version at the first start")
    ap.add_argument("--hardware", default="HW-A1", help="hardware revision of the module")
    ap.add_argument("--supplier", help="firmware supplier code, checked against manifests when given")
    ap.add_argument("--product-code", help="firmware product code, checked against manifests when given")
    ap.add_argument("--parts", default="display=2.1.0,bms=1.4.2:BQ76952,ecu=3.0.0",
                    help="other parts at the first start: name=version[:hardware],… ('' = none)")
    ap.add_argument("--audio", default="welcome=1.0.0", help="audio files held at the first start: name=version,…")
    ap.add_argument("--functions", help="function commands this firmware has (default all): lock,unlock,…")
    ap.add_argument("--activated", action="store_true", help="report activated: true")
    ap.add_argument("--battery", type=float, default=86.5)
    ap.add_argument("--riding", action="store_true", help="the bike is being ridden (refuses OTA, setConfig)")
    ap.add_argument("--iccid", help="SIM ICCID to report (with --imei); enables the simDataLow check")
    ap.add_argument("--imei")
    ap.add_argument("--sim-limit-mb", type=int, default=1024)
    ap.add_argument("--fault", help="publish a fault event CODE[:message] on every connect")
    ap.add_argument("--window", type=int, default=8, help="OTA blocks per request (1-32)")
    ap.add_argument("--https", action="store_true", help="download OTA images over the offer's HTTPS link while it is valid, MQTT blocks after")
    ap.add_argument("--https-cut", type=int, default=0, help="break the HTTPS download after N bytes (tests the MQTT fallback)")
    ap.add_argument("--window-pause", type=float, default=0, help="seconds between windows (a slow modem; tests abort)")
    ap.add_argument("--block-timeout", type=float, default=2.5, help="seconds before asking blocks again")
    ap.add_argument("--install-seconds", type=float, default=1)
    ap.add_argument("--reboot-seconds", type=float, default=2)
    ap.add_argument("--self-test-seconds", type=float, default=3)
    ap.add_argument("--fail-self-test", action="store_true", help="trial self-test fails (rolledBack E_SELF_TEST)")
    ap.add_argument("--fail-boot", action="store_true", help="a new IoT image does not boot (rolledBack E_BOOT)")
    ap.add_argument("--fail-flash", action="store_true", help="installing fails (failed E_FLASH_WRITE)")
    ap.add_argument("--damage-every", type=int, default=0, help="drop about 1 in N blocks as damaged (tests re-asking)")
    ap.add_argument("--drop-after-blocks", type=int, default=0, help="drop the connection once, after N blocks (tests resume)")
    ap.add_argument("--clock-skew", type=float, default=0, help="start with the clock off by N seconds (tests E_STALE)")
    ap.add_argument("--run-seconds", type=float, default=0, help="shut down cleanly after N seconds")
    ap.add_argument("--register-only", action="store_true", help="register (if no secret is kept) and exit")
    ap.add_argument("--self-test", action="store_true", help="check the document's worked examples and exit")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(message)s", datefmt="%H:%M:%S")
    logging.getLogger("urllib3").setLevel(logging.WARNING)
    if args.self_test:
        print("Ed25519 backend:", "python3-cryptography" if Ed25519PublicKey else "pure Python (RFC 8032)")
        return 0 if self_test() else 1
    if not args.sn or not SN_RE.match(args.sn):
        ap.error("--sn must be 4-32 upper-case letters and digits")
    if mqtt is None and not args.register_only:
        ap.error("paho-mqtt is missing: apt-get install python3-paho-mqtt")
    dev = Device(args)
    if args.register_only:
        if not dev.state.get("secret"):
            try:
                dev.register()
            except RegistrationError as e:
                log.error("%s", e)
                return 2
        print(json.dumps({"sn": dev.sn, "registered": bool(dev.state.get("secret")),
                          "mqtt": dev.state.get("mqtt"), "otaKeys": dev.state.get("otaKeys"),
                          "heartbeatSeconds": dev.state.get("heartbeatSeconds")}))
        return 0
    signal.signal(signal.SIGTERM, lambda *_: dev.shutdown())
    signal.signal(signal.SIGINT, lambda *_: dev.shutdown())
    try:
        dev.run()
    except RegistrationError as e:
        log.error("%s", e)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
