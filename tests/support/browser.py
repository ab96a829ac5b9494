"""A real headless Chromium for page tests: Debian's `chromium`, driven by Playwright.

Playwright's own browser download is not used (there is no network for it); the executable
is found on PATH. Every request the page makes is recorded, and any request that leaves
loopback is refused and reported, so a page that needs the internet fails its test.
"""

from __future__ import annotations

import shutil
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


_SHARED: dict[str, Any] = {}  # the session's one Chromium (and its Playwright), on first use


async def shared_browser() -> Browser:
    """One Chromium for the whole test session (launched by the first page asked for,
    again if it went away); each test gets a fresh context of its own from it."""
    browser: Browser | None = _SHARED.get("browser")
    if browser is None or not browser.is_connected():
        await close_shared_browser()
        playwright = await async_playwright().start()
        _SHARED["playwright"] = playwright
        _SHARED["browser"] = browser = await playwright.chromium.launch(
            executable_path=chromium_path(),
            # renderers share memory through /dev/shm, which a container may keep small
            # (64 MB): a renderer that runs out there dies as "Target crashed"; /tmp instead
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
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
    timezone_id, locale, viewport). The browser is the session's one Chromium."""
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

        page.on("console", console)
        yield seen
    finally:
        await context.close()


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
