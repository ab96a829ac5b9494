"""A real headless Chromium for page tests: Debian's `chromium`, driven by Playwright.

Playwright's own browser download is not used (there is no network for it); the executable
is found on PATH. Every request the page makes is recorded, and any request that leaves
loopback is refused and reported, so a page that needs the internet fails its test.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Browser, ConsoleMessage, Page, Route, async_playwright

LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def chromium_path() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        raise RuntimeError("Debian's chromium is not installed: run `bash ops/deps.sh browser`")
    return path


@dataclass
class OfflinePage:
    page: Page
    requested: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    crashed: bool = False


_SHARED: dict[str, Any] = {}  # the module's one Chromium (and its Playwright), on first use


async def shared_browser() -> Browser:
    """One Chromium for a test module (launched by the first page asked for, again if it
    went away; `tests/e2e/conftest.py` stops it at the module's end); each test gets a
    fresh context of its own from it."""
    browser: Browser | None = _SHARED.get("browser")
    if browser is None or not browser.is_connected():
        await close_shared_browser()
        playwright = await async_playwright().start()
        _SHARED["playwright"] = playwright
        # Chromium's own log (warnings, errors, a dying renderer's last words), kept in a file
        # so that a renderer crash is reported with what Chromium said (crash_report)
        log = os.path.join(tempfile.mkdtemp(prefix="storygraph-chromium-"), "chromium.log")
        _SHARED["log"] = log
        _SHARED["browser"] = browser = await playwright.chromium.launch(
            executable_path=chromium_path(),
            # renderers share memory through /dev/shm, which a container may keep small
            # (64 MB): a renderer that runs out there dies as "Target crashed"; /tmp instead
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--enable-logging",
                f"--log-file={log}",
            ],
        )
    return browser


async def close_shared_browser() -> None:
    """Stop the session's Chromium, if one was launched (the e2e session fixture's end)."""
    browser, playwright = _SHARED.pop("browser", None), _SHARED.pop("playwright", None)
    if browser is not None and browser.is_connected():
        await browser.close()
    if playwright is not None:
        await playwright.stop()


@asynccontextmanager
async def offline_page(**options: Any) -> AsyncIterator[OfflinePage]:
    """A fresh page, in a fresh browser context (no cookies, storage or routes of another
    test), whose network is loopback only (`options`: Playwright's new_context options, e.g.
    timezone_id, locale, viewport). The browser is the test module's one Chromium."""
    browser = await shared_browser()
    context = await browser.new_context(**options)
    try:
        page = await context.new_page()
        seen = OfflinePage(page)

        async def guard(route: Route) -> None:
            url = route.request.url
            seen.requested.append(url)
            host = urlsplit(url).hostname or ""
            if url.startswith(("data:", "blob:")) or host in LOOPBACK:
                await route.continue_()
            else:
                seen.refused.append(url)
                await route.abort("internetdisconnected")

        await context.route("**/*", guard)

        def console(message: ConsoleMessage) -> None:
            if message.type == "error":
                seen.console_errors.append(message.text)

        def crash(_: Page) -> None:
            seen.crashed = True

        page.on("console", console)
        page.on("crash", crash)
        try:
            yield seen
        except Exception as error:
            if seen.crashed:
                raise AssertionError(crash_report()) from error
            raise
    finally:
        await context.close()


def crash_report() -> str:
    """What the machine and Chromium said when a page's renderer died: free memory, the
    shared-memory and temporary folders' free space, the load, and Chromium log's last lines."""
    lines = ["Chromium's renderer crashed (the page is gone)."]
    try:
        with open("/proc/meminfo", encoding="utf-8") as meminfo:
            lines += [f"  {row.strip()}" for row in meminfo if row.startswith("MemAvailable")]
    except OSError:
        pass
    for folder in ("/dev/shm", tempfile.gettempdir()):
        if os.path.isdir(folder):
            usage = shutil.disk_usage(folder)
            lines.append(f"  {folder}: {usage.free // 2**20} MiB free of {usage.total // 2**20}")
    lines.append(f"  load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    log = _SHARED.get("log")
    if log and os.path.exists(log):
        with open(log, encoding="utf-8", errors="replace") as handle:
            # (the system bus is absent in a test machine: those lines say nothing)
            tail = [row for row in handle if "dbus" not in row][-40:]
        lines += ["Chromium's log, last lines:", *(f"  {row.rstrip()}" for row in tail)]
    return "\n".join(lines)


def screenshot_path(name: str) -> str | None:
    """Where a page test saves its screenshot `name`: under STORYGRAPH_SCREENSHOTS when set
    (the closing notes' screenshots), else nowhere (None)."""
    import os
    from pathlib import Path

    folder = os.environ.get("STORYGRAPH_SCREENSHOTS")
    if not folder:
        return None
    Path(folder).mkdir(parents=True, exist_ok=True)
    return str(Path(folder) / f"{name}.png")
