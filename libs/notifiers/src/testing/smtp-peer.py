"""A real SMTP server on 127.0.0.1 for the e-mail channel's tests (Debian's python3-aiosmtpd).

Prints one JSON line {"port": N} once it listens, then one JSON line per accepted message:
{"mail_from", "rcpt_tos", "data", "authenticated"}. A recipient whose local part is reject450 or
reject550 is refused with that reply code, so the tests can drive the retry rules.

Usage: /usr/bin/python3 smtp-peer.py --security none|starttls|tls [--cert F --key F]
       [--user U --password P]
"""

import argparse
import json
import socket
import ssl
import sys
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


class Recorder:
    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        local = address.split("@", 1)[0].lower()
        if local == "reject450":
            return "450 4.2.1 Mailbox busy, try later"
        if local == "reject550":
            return "550 5.1.1 No such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        emit(
            {
                "mail_from": envelope.mail_from,
                "rcpt_tos": envelope.rcpt_tos,
                "data": envelope.content.decode("utf-8", "replace"),
                "authenticated": bool(session.authenticated),
            }
        )
        return "250 Message accepted"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--security", choices=["none", "starttls", "tls"], default="none")
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--user")
    parser.add_argument("--password")
    args = parser.parse_args()

    context = None
    if args.security != "none":
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(args.cert, args.key)

    def authenticator(server, session, envelope, mechanism, auth_data):
        ok = (
            isinstance(auth_data, LoginPassword)
            and auth_data.login.decode() == args.user
            and auth_data.password.decode() == args.password
        )
        return AuthResult(success=ok, handled=False)

    smtp_options = {}
    if args.user is not None:
        smtp_options.update(
            authenticator=authenticator, auth_required=True, auth_require_tls=args.security == "starttls"
        )
    if args.security == "starttls":
        smtp_options.update(tls_context=context, require_starttls=True)

    port = free_port()
    controller = Controller(
        Recorder(),
        hostname="127.0.0.1",
        port=port,
        ssl_context=context if args.security == "tls" else None,
        server_hostname="localhost",
        **smtp_options,
    )
    controller.start()
    emit({"port": port})
    # Runs until the test closes stdin (or kills the process).
    sys.stdin.read()
    controller.stop()


if __name__ == "__main__":
    main()
