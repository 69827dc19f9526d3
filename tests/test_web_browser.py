"""The web page in a real browser: Debian's Chromium, driven by Selenium through Debian's
chromedriver, on a door started as ``serve`` with the pinned xterm.js as its local
``[web] assets`` (the CDN's copy is checked against it in test_web.py).

What a caller does: open the page, sign up, play a whole game by keys and another by mouse
clicks on the terminal, the board read back from xterm.js's buffer and every card checked
for its suit; resize the window mid-game; play on a phone (Chromium's mobile emulation, in
portrait and landscape) by the row of keys under the terminal and taps on the cards; close
the tab mid-game and resume; the reconnect button; the scoreboards' page after a won game, a
hostile alias shown as text; a German board's page, German from its status line to the
game's board.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ansi.keys import Mouse
from ansi.screen import ScreenBuffer
from door.config import load_config
from door.engine import Game
from door.engine.solver import solve
from door.net.web import PUBLISHED_SECONDS
from door.store import Store
from door.views.board import Geometry, Look, draw_board, geometry
from door.views.layout import fitted
from tests.support.door_log import DoorLog
from tests.support.german import GERMAN_NAMES, said
from tests.support.keyplay import Player
from tests.support.live_door import write_config
from tests.support.web_caller import ASSETS
from tests.support.winning import WON_DEAL, WON_LEVEL

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
WAIT = 20.0  # seconds any one wait in the browser may take
PASSWORD = "secret-one1"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
        reason="needs Debian's chromium and chromium-driver (.ci/run installs them)",
    ),
    pytest.mark.skipif(
        not ASSETS.is_dir(), reason="needs the pinned xterm.js in web-assets (.ci/run fetches it)"
    ),
]

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402


class Door:
    """``canfield-door serve`` in a subprocess, the web on a free port."""

    def __init__(self, folder: Path, language: str = "en") -> None:
        """The shipped sysop.toml; with ``language`` "de", a German board's."""
        edits = {'# assets = "/srv/canfield/web/node_modules/@xterm"': f'assets = "{ASSETS}"'}
        if language == "de":  # the sysop's own names German too, as a German sysop's are
            edits['\nlanguage = "en"\n'] = '\nlanguage = "de"\n'
            edits.update({f"name = {old}": f"name = {new}" for old, new in GERMAN_NAMES.items()})
        self.config = write_config(folder, edits=edits)
        self.log = folder / "door.log"
        with self.log.open("w") as stderr:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "door", "serve", "--config", str(self.config)],
                stderr=stderr,
                stdin=subprocess.DEVNULL,
                cwd=folder,
            )
        deadline = time.monotonic() + WAIT
        while not (found := re.search(r"listening for web on \S+ port (\d+)", self.logged())):
            assert self.process.poll() is None and time.monotonic() < deadline, self.logged()
            time.sleep(0.05)
        self.url = f"http://127.0.0.1:{found.group(1)}"
        self.telnet_port = int(re.findall(r"listening on \S+ port (\d+)", self.logged())[0])

    def logged(self) -> str:
        return self.log.read_text()

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=WAIT)

    def scored_game(self, alias: str, deal: int, level: int) -> None:
        """A scored game of a deal the test knows, saved for ``alias`` to resume (no caller
        can choose a scored deal), written to the door's database as a visit writes it."""

        async def start() -> None:
            config = load_config(self.config)
            async with Store.open(config.server.database, create=False) as store:
                user = await store.find_user(alias)
                chosen = config.level(level)
                await store.start_game(user.id, chosen, Game.deal(chosen.variant, deal))

        asyncio.run(start())

    def won_game(self, alias: str, deal: int, level: int) -> None:
        """A won scored game of ``alias`` (signed up here if new), finished in the door's
        database as a visit finishes it."""

        async def play() -> None:
            config = load_config(self.config)
            async with Store.open(config.server.database, create=False) as store:
                user = await store.find_user(alias) or await store.create_user(alias, PASSWORD)
                chosen = config.level(level)
                game = Game.deal(chosen.variant, deal)
                game_id = await store.start_game(user.id, chosen, game)
                for command in winning_line(chosen.variant):
                    game.play(command)
                    if game.status == "won":
                        break
                await store.finish_game(game_id, game)

        asyncio.run(play())


@pytest.fixture(scope="module")
def door() -> Iterator[Door]:
    with tempfile.TemporaryDirectory() as folder:
        running = Door(Path(folder))
        yield running
        running.close()


@pytest.fixture(autouse=True)
def door_logged(door: Door, door_log: DoorLog) -> None:
    """What the door (shared by the module's tests) logs while a test runs is that test's."""
    mark = len(door.logged())
    door_log.watch("serve's log", lambda: door.logged()[mark:])


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[webdriver.Chrome]:
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'chromium'}",
        "--window-size=1100,800",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # a 404 shows there
    service = webdriver.ChromeService(executable_path=str(CHROMEDRIVER))
    driver = webdriver.Chrome(options=options, service=service)
    try:
        yield driver
    finally:
        driver.quit()


# -- what the test sees of the page -----------------------------------------------------------

SCREEN_JS = """
const terminal = window.door.terminal, buffer = terminal.buffer.active, rows = [];
for (let row = 0; row < terminal.rows; row++) {
    const line = buffer.getLine(buffer.viewportY + row);
    rows.push(line ? line.translateToString(true) : "");
}
return rows;
"""


def screen(driver) -> list[str]:
    """The terminal's rows as xterm.js holds them, read through JavaScript."""
    return driver.execute_script(SCREEN_JS)


def wait_for(driver, pattern: str, timeout: float = WAIT) -> list[str]:
    regex = re.compile(pattern)
    deadline = time.monotonic() + timeout
    while True:
        rows = screen(driver)
        if regex.search("\n".join(rows)):
            return rows
        if time.monotonic() > deadline:
            shown = "\n".join(rows)
            raise AssertionError(f"{pattern!r} not seen in {timeout} s; the screen:\n{shown}")
        time.sleep(0.03)


def wait_status(driver, words: str) -> None:
    deadline = time.monotonic() + WAIT
    while words not in (status := driver.find_element(By.ID, "status").text):
        assert time.monotonic() < deadline, f"status: {status!r}"
        time.sleep(0.05)


def type_keys(driver, text: str) -> None:
    driver.find_element(By.CSS_SELECTOR, ".xterm-helper-textarea").send_keys(text)


def open_page(driver, door: Door) -> None:
    driver.get(door.url + "/")
    wait_status(driver, "Connected")
    wait_for(driver, "Your alias")


def sign_up(driver, door: Door, alias: str) -> None:
    open_page(driver, door)
    type_keys(driver, alias + "\n")
    wait_for(driver, r"Sign\s+up\?")  # wrapped on a narrow screen
    type_keys(driver, "Y")
    wait_for(driver, "Password:")
    type_keys(driver, PASSWORD + "\n")
    wait_for(driver, r"Password\s+again")
    type_keys(driver, PASSWORD + "\n")
    wait_for(driver, "Your choice")


def log_in(driver, door: Door, alias: str) -> None:
    open_page(driver, door)
    type_keys(driver, alias + "\n")
    wait_for(driver, "Password for")
    type_keys(driver, PASSWORD + "\n")
    wait_for(driver, "Your choice")


def practice(driver, deal: int, level: int) -> None:
    type_keys(driver, "#")
    wait_for(driver, "Deal number")
    type_keys(driver, f"{deal}\n")
    wait_for(driver, "Choose a level")
    type_keys(driver, str(level))
    wait_for(driver, r"Command \(\? for help\)")


def terminal_size(driver) -> tuple[int, int]:
    cols, rows = driver.execute_script(
        "return [window.door.terminal.cols, window.door.terminal.rows]"
    )
    return cols, rows


def board_geometry(size: tuple[int, int], game: Game) -> Geometry:
    """Where the door draws the board for a terminal of ``size`` (columns, rows)."""
    shown = fitted(*size)
    assert shown is not None, size
    g = geometry(*shown, len(game.tableau))
    assert g is not None, size
    return g


def assert_board_shows(
    rows: list[str], game: Game, level_name: str, size: tuple[int, int] = (80, 24)
) -> None:
    """Every card in view on the page is the door's card, with its suit (UTF-8 detected),
    on the board the door draws for a terminal of ``size`` (any larger than 80x24 shows the
    classic board)."""
    g = board_geometry(size, game)
    expected = ScreenBuffer(g.width, g.height)
    draw_board(expected, game, level_name, Look(width=g.width, height=g.height))
    piles = [g.card_row, g.foundation_row, *range(g.first_column_row, g.last_column_row + 1)]
    for row in dict.fromkeys(piles):
        end = g.piles_end if row == g.card_row else g.sidebar_col - 2
        shown = rows[row - 1][:end].replace("►", " ")  # the mouse's pointer, beside a pile
        assert shown.rstrip() == expected.text_at(row)[:end].rstrip(), (row, rows)
    assert re.search("[♥♦♣♠]", rows[g.card_row - 1] + rows[g.foundation_row - 1])


BOARD_BLACK = "rgb(46, 52, 54)"  # xterm.js's ANSI black, on which the door draws

PAGE_COLOURS_JS = """
const painted = [document.documentElement, document.body, document.getElementById("terminal"),
                 document.querySelector(".xterm-scrollable-element")];
return painted.map((element) => getComputedStyle(element).backgroundColor);
"""


def page_colours(driver) -> set[str]:
    """The backgrounds of the page, its terminal's box and the terminal itself."""
    return {
        colour for colour in driver.execute_script(PAGE_COLOURS_JS) if colour != "rgba(0, 0, 0, 0)"
    }


def click_cells(driver, cells: list[tuple[int, int]]) -> None:
    """Clicks on the terminal's cells (1-based row, column), as a caller's mouse makes them."""
    element = driver.find_element(By.CSS_SELECTOR, ".xterm-screen")
    cols, rows = driver.execute_script(
        "return [window.door.terminal.cols, window.door.terminal.rows]"
    )
    width, height = element.size["width"], element.size["height"]
    actions = ActionChains(driver, duration=0)
    for row, col in cells:
        x = (col - 0.5) * width / cols - width / 2
        y = (row - 0.5) * height / rows - height / 2
        actions.move_to_element_with_offset(element, round(x), round(y)).click()
    actions.perform()


def winning_line(level_variant) -> list[str]:
    verdict = solve(Game.deal(level_variant, WON_DEAL), max_seconds=20)
    assert verdict.result == "won"
    return list(verdict.line)


def play_to_the_win(driver, game: Game, level_name: str, method: str) -> None:
    """Win ``game`` by hot keys or by mouse clicks, each play seen on the board before the
    next, the board checked card by card now and then."""
    player = Player("hot" if method == "keys" else "clicks", game)
    for move, command in enumerate(winning_line(game.variant), start=1):
        keys = player.keys_for(command)
        if method == "keys":
            type_keys(driver, "".join(keys))
        elif all(isinstance(key, Mouse) for key in keys):
            click_cells(driver, [(key.row, key.col) for key in keys if key.pressed])
        else:  # a play with no pile to click (a foundation's base chosen, say): its keys
            type_keys(driver, "".join(key for key in keys if isinstance(key, str)))
        game.play(command)
        if game.status == "won":
            break
        rows = wait_for(driver, rf"Moves\s+{move}\b")
        if move % 40 == 1:
            assert_board_shows(rows, game, level_name)
    wait_for(driver, "You won! Final score", timeout=30)


# -- the tests --------------------------------------------------------------------------------


def test_sign_up_win_a_scored_game_by_keys_and_see_the_scores_page(browser, door):
    alias = "<i>Zed</i>&"
    sign_up(browser, door, alias)
    door.scored_game(alias, WON_DEAL, WON_LEVEL)
    type_keys(browser, "X")
    wait_for(browser, "Resume your saved game")
    type_keys(browser, "R")
    rows = wait_for(browser, r"Command \(\? for help\)")
    config = load_config(door.config)
    level = config.level(WON_LEVEL)
    game = Game.deal(level.variant, WON_DEAL)
    assert_board_shows(rows, game, level.name)
    # The page answered the door's telnet questions: its terminal type and window size.
    cols, rows_count = browser.execute_script(
        "return [window.door.terminal.cols, window.door.terminal.rows]"
    )
    connected = f"web connect from 127.0.0.1, xterm-256color {cols}x{rows_count}, ANSI"
    assert connected in door.logged()
    assert "the screen draws utf-8" in door.logged()
    play_to_the_win(browser, game, level.name, "keys")
    type_keys(browser, "\n")
    wait_for(browser, "Well played")

    browser.get(door.url + "/scores")
    page = browser.find_element(By.TAG_NAME, "body").text
    assert alias in page  # shown as the text it is ...
    assert browser.find_elements(By.CSS_SELECTOR, "td i") == []  # ... never as markup
    assert level.name in page and "Standings" in page and "Deal of the day" in page


def test_a_whole_game_by_mouse_clicks_on_the_terminal(browser, door):
    sign_up(browser, door, "Mousey")
    practice(browser, WON_DEAL, WON_LEVEL)
    level = load_config(door.config).level(WON_LEVEL)
    play_to_the_win(browser, Game.deal(level.variant, WON_DEAL), level.name, "clicks")


def test_the_terminal_fills_the_window_and_the_board_is_drawn_again_as_it_changes(browser, door):
    browser.set_window_size(1920, 1080)
    sign_up(browser, door, "Resizer")
    practice(browser, 48213, 2)
    level = load_config(door.config).level(2)
    game = Game.deal(level.variant, 48213)
    size = terminal_size(browser)
    for window in ((640, 480), (1280, 800)):
        browser.set_window_size(*window)
        deadline = time.monotonic() + WAIT
        while terminal_size(browser) == size:
            assert time.monotonic() < deadline, f"the terminal was not fitted to {window}"
            time.sleep(0.05)
        size = terminal_size(browser)
        assert size[0] >= 40 and size[1] >= 20  # the classic board, or the narrow one
        # The terminal fills the window, on the board's own black from edge to edge.
        shown = browser.find_element(By.CSS_SELECTOR, ".xterm-screen").size
        inner = browser.execute_script("return [window.innerWidth, window.innerHeight]")
        assert shown["width"] <= inner[0] and shown["height"] <= inner[1]
        assert shown["width"] > inner[0] * 0.9, (shown, inner)
        assert page_colours(browser) == {BOARD_BLACK}
        # The door drew the board again for the new size, and it plays on.
        deadline = time.monotonic() + WAIT
        while True:
            try:
                assert_board_shows(screen(browser), game, level.name, size)
                break
            except AssertionError:
                assert time.monotonic() < deadline, "the board was not drawn again"
                time.sleep(0.1)
        type_keys(browser, "V")
        game.play("V")
        assert_board_shows(wait_for(browser, rf"Moves\s+{game.moves}\b"), game, level.name, size)


# -- a phone ----------------------------------------------------------------------------------


def emulate_phone(driver, width: int, height: int) -> None:
    """Chromium as a phone of ``width`` x ``height`` CSS pixels with a touch screen."""
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 3, "mobile": True},
    )
    driver.execute_cdp_cmd(
        "Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5}
    )


def tap(driver, x: float, y: float) -> None:
    """A finger's tap at ``x``, ``y`` (CSS pixels in the window)."""
    point = {"x": round(x), "y": round(y)}
    driver.execute_cdp_cmd(
        "Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [point]}
    )
    driver.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


KEY_CENTRES_JS = """
const centres = {};
for (const button of document.querySelectorAll("#keys button")) {
    const box = button.getBoundingClientRect();
    centres[button.textContent] = [box.left + box.width / 2, box.top + box.height / 2];
}
return centres;
"""


def tap_keys(driver, labels: list[str]) -> None:
    """Taps on the keys under the terminal, by their labels."""
    centres = driver.execute_script(KEY_CENTRES_JS)
    for label in labels:
        tap(driver, *centres[label])


def tap_cells(driver, cells: list[tuple[int, int]]) -> None:
    """Taps on the terminal's cells (1-based row, column)."""
    box = driver.execute_script(
        "const box = document.querySelector('.xterm-screen').getBoundingClientRect();"
        "return [box.left, box.top, box.width, box.height]"
    )
    cols, rows = terminal_size(driver)
    for row, col in cells:
        tap(driver, box[0] + (col - 0.5) * box[2] / cols, box[1] + (row - 0.5) * box[3] / rows)


@pytest.mark.parametrize(
    ("width", "height"), [(390, 844), (844, 390)], ids=["portrait", "landscape"]
)
def test_a_phone_plays_by_the_row_of_keys_and_taps_on_the_cards(browser, door, width, height):
    emulate_phone(browser, width, height)
    sign_up(browser, door, f"Phone{width}")
    keys = browser.find_element(By.ID, "keys")
    assert keys.is_displayed()
    labels = [button.text for button in keys.find_elements(By.TAG_NAME, "button")]
    assert labels == [
        "Esc",
        "←",
        "↑",
        "↓",
        "→",
        "Space",
        "Enter",
        "V",
        "S",
        "D",
        "1",
        "2",
        "3",
        "4",
        "F",
        "U",
        "?",
    ]
    size = terminal_size(browser)
    assert size[0] >= 40 and size[1] >= 20
    inner = browser.execute_script("return [window.innerWidth, window.innerHeight]")
    assert inner == [width, height]
    practice(browser, WON_DEAL, WON_LEVEL)
    level = load_config(door.config).level(WON_LEVEL)
    game = Game.deal(level.variant, WON_DEAL)
    g = board_geometry(size, game)
    assert g.short  # a phone's window: the narrow board
    assert_board_shows(screen(browser), game, level.name, size)
    clicks = Player("clicks", game, geometry=g)
    hot = Player("hot", game)
    hot.mirror = clicks.mirror  # one pointer, whichever way a play is made
    for move, command in enumerate(winning_line(game.variant), start=1):
        # By turns, the keys under the terminal and taps on the cards (as a mouse clicks
        # them); a play with no pile to tap, by its keys.
        keys = (hot if move % 2 else clicks).keys_for(command)
        taps = [(key.row, key.col) for key in keys if isinstance(key, Mouse) and key.pressed]
        if taps:
            tap_cells(browser, taps)
        else:
            tap_keys(browser, [key for key in keys if isinstance(key, str)])
        game.play(command)
        if game.status == "won":
            break
        rows = wait_for(browser, rf"Moves\s+{move}\b")
        if move % 20 == 1:
            assert_board_shows(rows, game, level.name, size)
    wait_for(browser, "You won!", timeout=30)
    tap_keys(browser, ["Enter"])
    wait_for(browser, "Well played")


def test_a_tab_closed_mid_game_resumes_and_a_cut_off_page_connects_again(browser, door):
    first = browser.current_window_handle
    browser.switch_to.new_window("tab")
    sign_up(browser, door, "Closer")
    practice(browser, 48213, 2)
    for move in (1, 2, 3):
        type_keys(browser, "V")
        wait_for(browser, rf"Moves\s+{move}\b")
    browser.close()  # the tab, mid-game
    browser.switch_to.window(first)
    log_in(browser, door, "Closer")
    wait_for(browser, "Resume your saved game")
    type_keys(browser, "R")
    rows = wait_for(browser, r"Moves\s+3\b")
    level = load_config(door.config).level(2)
    game = Game.deal(level.variant, 48213)
    for _ in range(3):
        game.play("V")
    assert_board_shows(rows, game, level.name)
    # The scoreboards open in a tab of their own: the call goes on in this one.
    browser.find_element(By.LINK_TEXT, "Scoreboards").click()
    deadline = time.monotonic() + WAIT
    while len(browser.window_handles) < 2:
        assert time.monotonic() < deadline, "the scoreboards did not open in a new tab"
        time.sleep(0.05)
    assert browser.current_window_handle == first
    assert browser.current_url == door.url + "/"
    wait_status(browser, "Connected")
    [scores] = set(browser.window_handles) - {first}
    browser.switch_to.window(scores)
    browser.close()
    browser.switch_to.window(first)
    type_keys(browser, "V")
    game.play("V")
    wait_for(browser, r"Moves\s+4\b")
    # Leaving the door cuts the page off; its button calls again.
    type_keys(browser, "Q")
    wait_for(browser, "Your choice")
    type_keys(browser, "G")
    wait_status(browser, "Cut off")
    assert browser.title == "Cut off - The Canfield Door - Canfield"
    again = browser.find_element(By.ID, "again")
    assert again.is_displayed()
    again.click()
    wait_status(browser, "Connected")
    wait_for(browser, "Your alias")
    assert browser.title == "Connected - The Canfield Door - Canfield"


def test_a_screenshot_of_the_page_in_play(browser, door, tmp_path):
    """The README's picture of the page: written to docs/ when SCREENSHOT is set."""
    browser.set_window_size(1100, 760)
    sign_up(browser, door, "Alice")
    practice(browser, 48213, 2)
    for move, key in enumerate("VVS", start=1):
        type_keys(browser, key)
        if key != "S":
            wait_for(browser, rf"Moves\s+{move}\b")
    path = tmp_path / "web-play.png"
    assert browser.save_screenshot(str(path))
    if os.environ.get("SCREENSHOT"):
        target = Path(__file__).resolve().parent.parent / "docs" / "web-play.png"
        target.parent.mkdir(exist_ok=True)
        shutil.copy(path, target)


def test_a_page_whose_xterm_did_not_load_says_so_and_offers_telnet(browser, door):
    """As a caller whose network blocks the CDN sees it: here the local copy is blocked."""
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/xterm.js*"]})
    browser.get(door.url + "/")
    wait_status(browser, "Cannot show the terminal: xterm.js did not load")
    help_text = browser.find_element(By.ID, "unloaded")
    assert help_text.is_displayed()
    assert "could not load it from this board" in help_text.text
    assert f"telnet 127.0.0.1 {door.telnet_port}" in help_text.text
    assert browser.title == "No terminal - The Canfield Door - Canfield"
    link = browser.find_element(By.ID, "telnet").get_attribute("href")
    assert link == f"telnet://127.0.0.1:{door.telnet_port}"


def test_a_paste_too_big_for_the_door_is_said_to_be_why_the_call_ended(browser, door):
    open_page(browser, door)
    browser.execute_script("window.door.terminal.paste('x'.repeat(20000))")
    wait_status(browser, "Cut off: that paste was more than the door takes at once (16 KB)")
    wait_for(browser, r"more than the door takes at once \(16 KB at most\)")
    assert browser.find_element(By.ID, "again").is_displayed()


def test_the_page_has_an_icon_and_its_tab_says_how_the_call_stands(browser, door):
    browser.get(door.url + "/")
    wait_status(browser, "Connected")
    assert browser.title == "Connected - The Canfield Door - Canfield"
    browser.get(door.url + "/scores")
    browser.find_element(By.TAG_NAME, "h1")
    for page in ("/", "/scores"):
        browser.get(door.url + page)
        loaded = browser.execute_script(
            "return fetch(document.querySelector('link[rel=icon]').href)"
            ".then((response) => [response.status, response.headers.get('content-type')])"
        )
        assert loaded == [200, "image/svg+xml; charset=utf-8"]
    missing = [entry for entry in browser.get_log("browser") if "404" in entry["message"]]
    assert missing == []


def test_the_scores_page_fits_a_phone_s_narrow_screen(browser, door):
    door.won_game("Narrow-Winner", WON_DEAL, WON_LEVEL)
    door.scored_game("Narrow-Winner", WON_DEAL, WON_LEVEL)  # a game to resume: Saved *
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 360, "height": 740, "deviceScaleFactor": 2, "mobile": True},
    )
    # The page is rendered at most every PUBLISHED_SECONDS: another test's visit to it may
    # have been the last render.
    deadline = time.monotonic() + PUBLISHED_SECONDS + 5
    while True:
        browser.get(door.url + "/scores")
        if "Narrow-Winner" in browser.find_element(By.TAG_NAME, "body").text:
            break
        assert time.monotonic() < deadline, "the winner never reached /scores"
        time.sleep(1)
    widths = browser.execute_script(
        "return [window.innerWidth, document.documentElement.scrollWidth]"
    )
    assert widths[0] == 360 and widths[1] <= 360, widths


@pytest.fixture
def german_door(tmp_path: Path, door_log: DoorLog) -> Iterator[Door]:
    """A door of its own whose ``[words] language`` is "de"."""
    folder = tmp_path / "german"
    folder.mkdir()
    running = Door(folder, language="de")
    door_log.watch("the German serve's log", running.logged)
    yield running
    running.close()


def test_a_german_board_s_page_speaks_german_from_the_status_line_to_the_game(browser, german_door):
    browser.get(german_door.url + "/")
    wait_status(browser, "Verbunden.")
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "de"
    assert browser.title == "Verbunden - Die Canfield-Mailbox - Canfield"
    assert browser.find_element(By.ID, "status").text == "Verbunden."
    assert browser.find_element(By.CSS_SELECTOR, "a[href='/scores']").text == "Bestenlisten"
    # The door greets in German, and the board of a deal is German around its cards.
    wait_for(browser, said("Your alias"))
    type_keys(browser, "Gast-Web\n")
    wait_for(browser, said("Sign up?"))
    type_keys(browser, "Y")
    wait_for(browser, said("Password:"))
    type_keys(browser, PASSWORD + "\n")
    wait_for(browser, said("Password again"))
    type_keys(browser, PASSWORD + "\n")
    wait_for(browser, said("Your choice"))
    type_keys(browser, "#")
    wait_for(browser, said("Deal number"))
    type_keys(browser, "48213\n")
    wait_for(browser, said("Choose a level"))
    type_keys(browser, "2")
    board = wait_for(browser, said("Command (? for help)"))
    shown = "\n".join(board)
    for german in ("Reserve S", "Talon V", "Abwurf D", "Fundamente F", "Punkte", "Züge"):
        assert german in shown, shown
    assert "Befehl (? für Hilfe)" in shown and "Stufe 2 - Drei Karten" in shown
    # Leaving cuts the page off, said in German, and its button offers to call again.
    type_keys(browser, "Q")
    wait_for(browser, said("Your choice"))
    type_keys(browser, "G")
    wait_status(browser, "Getrennt: der Anruf ist beendet.")
    assert browser.title == "Getrennt - Die Canfield-Mailbox - Canfield"
    again = browser.find_element(By.ID, "again")
    assert again.is_displayed() and again.text == "Neu verbinden"
