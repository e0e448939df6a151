"""A stand-in mail server for the portal's browser suite (scripts/suites/portal_browser.sh).

Listens with aiosmtpd on 127.0.0.1 and a free port (plain SMTP: no TLS, no auth), writes
that port to --port-file once it accepts connections, and saves every message it receives
to --maildir as `<n>.eml` (the raw message as sent, with the envelope's recipients in a
leading `X-Sink-Rcpt-To` header). A file is written under a temporary name and renamed,
so a reader never sees half a message. Runs until it is stopped (SIGTERM or SIGINT).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import signal
from pathlib import Path

from aiosmtpd.smtp import SMTP


class Keeper:
    """Saves each message to the mail directory, numbered in arrival order."""

    def __init__(self, maildir: Path) -> None:
        self.maildir = maildir
        self.numbers = itertools.count(1)

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 (aiosmtpd's name)
        number = next(self.numbers)
        content = envelope.original_content or envelope.content
        if isinstance(content, str):
            content = content.encode("utf-8")
        rcpt = ", ".join(envelope.rcpt_tos).encode("utf-8")
        final = self.maildir / f"{number:04d}.eml"
        partial = self.maildir / f".{number:04d}.eml.part"
        partial.write_bytes(b"X-Sink-Rcpt-To: " + rcpt + b"\r\n" + content)
        os.replace(partial, final)
        print(f"smtp_sink: kept {final.name} for {', '.join(envelope.rcpt_tos)}", flush=True)
        return "250 Message accepted for delivery"


async def serve(args: argparse.Namespace) -> None:
    loop = asyncio.get_running_loop()
    keeper = Keeper(args.maildir)
    # Port 0: the system picks a free port, and the bound socket tells which. (aiosmtpd's
    # threaded Controller cannot take port 0: it probes the port it was given.)
    server = await loop.create_server(
        lambda: SMTP(keeper, hostname="manabi-sink", ident="manabi smtp_sink"),
        host=args.host,
        port=0,
    )
    port = server.sockets[0].getsockname()[1]
    partial = args.port_file.with_name(args.port_file.name + ".part")
    partial.write_text(f"{port}\n")
    os.replace(partial, args.port_file)
    print(f"smtp_sink: listening on {args.host}:{port}", flush=True)

    stop = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    server.close()
    await server.wait_closed()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port-file", required=True, type=Path)
    parser.add_argument("--maildir", required=True, type=Path)
    parser.add_argument("--host", default="127.0.0.1")
    args = parser.parse_args()
    args.maildir.mkdir(parents=True, exist_ok=True)
    asyncio.run(serve(args))


if __name__ == "__main__":
    main()
