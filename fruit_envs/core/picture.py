"""Pictures of a game's table as `(H, W, 3) uint8` arrays, the window that shows them, and GIF/PNG files.

Each game draws its own table in `fruit_envs/games/<id>/picture.py`, found by game id:

    view(state, i, seat=None) -> dict   what `seat` may know of game `i` (None: the referee's full view),
                                        JSON-able, readable names; the only thing `draw` paints from.
                                        Seat names are absolute; where a seat's place in the turn
                                        order matters, the view states it as a value.
    knowledge(view) -> dict             (optional) the view without what is shown but can no longer
                                        matter for play (default: the whole view)
    draw(state, i, seat=None, labels=None) -> (H, W, 3) uint8, a size that depends on the config only;
                                        `labels[k]`: the agent in seat k, drawn beside its name
                                        (`with_labels`, `seat_title`)
    text(view) -> str                   (optional) the view as text; default: `view_text`

Replays draw each picture with the agents' labels on their seats and a caption band below it
(`captioned`) telling the decision that led to it (`fruit_envs.replay.caption`).

A game without a picture module still gets a picture: its `describe()` as text on an image (the
public part only for a seat's view), so nothing breaks, but the test suite asks for the module.

Drawing needs Pillow (the `render` extra: `pip install 'fruit_envs[render]'`); the rules modules
never import it. Everything here is generic: nothing knows about a particular game.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence
from functools import cache, lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from fruit_envs.core.rules_api import phase_name
from fruit_envs.core.spec import GameSpec, companion_module, companion_name, get_spec

EXTRA_HINT = "pip install 'fruit_envs[render]'"  # the optional extra that brings Pillow

# --- finding a game's picture module -------------------------------------------------------------


def picture_module_name(spec: GameSpec) -> str:
    """Import path of a game's picture module: the rules module's package + `.picture`."""
    return companion_name(spec, "picture")


def picture_module(game: str | GameSpec) -> ModuleType | None:
    """The game's picture module, or None when the game has none (the generic picture is used)."""
    return companion_module(game, "picture")


def view(state, i: int = 0, seat: int | None = None) -> dict:
    """What `seat` may know of game `i` of a batch (None: the full referee view), as JSON-able data."""
    _check_seat(state, seat)
    module = picture_module(state.GAME)
    if module is not None:
        return module.view(state, i, seat)
    return generic_view(state, i, seat)


def knowledge(state, i: int = 0, seat: int | None = None) -> dict:
    """What `seat` knows of game `i` that can still matter for play: its `view`, passed through the
    picture module's `knowledge(view)` where it has one (to drop what is shown but can no longer
    matter, such as a past set's score already counted in a total). Observations are checked against
    this: two positions whose knowledge differs must give the seat different observations."""
    v = view(state, i, seat)
    module = picture_module(state.GAME)
    return module.knowledge(v) if module is not None and hasattr(module, "knowledge") else v


def picture(state, i: int = 0, seat: int | None = None, labels: Sequence[str | None] | None = None) -> np.ndarray:
    """`(H, W, 3) uint8` picture of game `i` from `seat`'s view (None: the full view); needs Pillow.
    `labels[k]`, when given, is drawn beside seat k's name (the agent sitting there: `greedy`)."""
    require_pillow()
    _check_seat(state, seat)
    module = picture_module(state.GAME)
    if module is not None:
        return module.draw(state, i, seat, labels=labels) if labels else module.draw(state, i, seat)
    return generic_draw(state, i, seat)


def text(state, i: int = 0, seat: int | None = None, labels: Sequence[str | None] | None = None) -> str:
    """Text of game `i`: the rules' own `render` for the full view, the seat's view otherwise (with
    `labels`, the agents' labels beside the seats' names)."""
    if seat is None:
        return get_spec(state.GAME).rules.render(state, i)
    v = with_labels(view(state, i, seat), labels)
    module = picture_module(state.GAME)
    if module is not None and hasattr(module, "text"):
        return module.text(v)
    return view_text(v)


def with_labels(v: dict, labels: Sequence[str | None] | None) -> dict:
    """The view with `labels` (who sits in each seat: agent labels, None where unknown) under "labels",
    by seat name, for `seat_title`; the view itself when there are none."""
    if not labels:
        return v
    return {**v, "labels": {f"player_{k}": label for k, label in enumerate(labels) if label}}


def seat_title(v: dict, name: str, you: str = "  (you)") -> str:
    """How a picture names a seat: `player_1`, with its agent's label when the view carries labels
    (`player_1 (greedy)`), and `you` appended for the seat whose view it is."""
    label = v.get("labels", {}).get(name)
    return name + (f" ({label})" if label else "") + (you if v.get("view") == name else "")


def _check_seat(state, seat) -> None:
    if seat is None:
        return
    p = state.config.num_players
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < p:
        raise ValueError(f"seat must be None (full view) or an int in 0..{p - 1}, got {seat!r}")


def seat_names(num_players: int) -> list[str]:
    return [f"player_{k}" for k in range(num_players)]


# --- the generic picture: describe() as text ------------------------------------------------------


def generic_view(state, i: int = 0, seat: int | None = None) -> dict:
    """`describe()` of game `i`; for a seat, without its `hidden` part and the random key (nothing
    there is known to belong to the seat, so a seat is shown only what every seat sees)."""
    d = get_spec(state.GAME).rules.describe(state, i)
    if seat is None:
        return d
    d = {k: v for k, v in d.items() if k not in ("hidden", "rng_key")}
    d["view"] = seat_names(state.config.num_players)[seat]
    return d


def view_text(v: Any, indent: str = "") -> str:
    """A view (nested dicts and lists of plain values) as compact text, one top-level key a line."""
    lines = []
    if not isinstance(v, dict):
        return indent + _inline(v)
    for key, value in v.items():
        if isinstance(value, dict) and value and any(isinstance(x, (dict, list)) for x in value.values()):
            lines.append(f"{indent}{key}:")
            lines.append(view_text(value, indent + "  "))
        else:
            lines.append(f"{indent}{key}: {_inline(value)}")
    return "\n".join(lines)


def _inline(value: Any) -> str:
    if isinstance(value, dict):
        return " | ".join(f"{k}: {_inline(x)}" for k, x in value.items()) or "-"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_inline(x) for x in value) + "]"
    if value is None:
        return "-"
    return str(value)


def generic_draw(state, i: int = 0, seat: int | None = None) -> np.ndarray:
    spec = get_spec(state.GAME)
    v = generic_view(state, i, seat)
    lines = []
    for line in view_text({k: x for k, x in v.items() if k not in ("game", "version")}).splitlines():
        while len(line) > 110:
            lines.append(line[:110])
            line = "    " + line[110:]
        lines.append(line)
    canvas = Canvas(960, 70 + 18 * len(lines))
    canvas.header(spec.name, status_line(state, i), view_label(state, seat))
    for k, line in enumerate(lines):
        canvas.text((16, 60 + 18 * k), line, size=13)
    return canvas.array()


def status_line(state, i: int) -> str:
    """`phase, player_k to move` (or `game over`) from the public schema and the game's PHASE_NAMES."""
    if bool(state.done[i]):
        return "game over (truncated)" if bool(state.truncated[i]) else "game over"
    name = phase_name(get_spec(state.GAME), state, i)
    who = f"player_{int(state.to_move[i])} to move"
    return who if name is None else f"{name}: {who}"


def view_label(state, seat: int | None) -> str:
    return "full view" if seat is None else f"view of player_{seat}"


# --- Pillow ---------------------------------------------------------------------------------------


def require_pillow():
    """The PIL package, or an ImportError that names the extra to install."""
    try:
        import PIL.Image  # noqa: F401
        import PIL.ImageDraw  # noqa: F401
        import PIL.ImageFont  # noqa: F401
    except ImportError as error:
        raise ImportError(f"pictures (render_mode='rgb_array', GIF/PNG replays) need Pillow: {EXTRA_HINT}") from error
    import PIL

    return PIL


@cache
def font(size: int = 14, bold: bool = False):
    """Pillow's bundled scalable font at `size` pixels (the same on every machine); `bold`: a real bold face,
    DejaVu Sans Bold as matplotlib ships it (Pillow bundles no bold), None where it cannot be found."""
    from PIL import ImageFont

    if bold:
        path = bold_font_path()
        return None if path is None else ImageFont.truetype(str(path), size)
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1: one fixed bitmap size
        return ImageFont.load_default()


def bold_font_path() -> Path | None:
    """matplotlib's copy of DejaVu Sans Bold (matplotlib is a dependency: the same face on every machine), found
    without importing matplotlib; None where it is missing."""
    import importlib.util

    found = importlib.util.find_spec("matplotlib")
    for folder in (found.submodule_search_locations or []) if found else []:
        path = Path(folder) / "mpl-data" / "fonts" / "ttf" / "DejaVuSans-Bold.ttf"
        if path.is_file():
            return path
    return None


@lru_cache(maxsize=8192)
def text_mask(s: str, size: int, anchor: str, bold: bool):
    """`s` drawn once as an 8-bit mask and where it sits from its anchor: a picture draws the same few hundred
    strings every frame (tile names, numbers), and FreeType's rendering was most of a frame's time."""
    from PIL import Image, ImageDraw

    face = font(size, bold) if bold else font(size)
    stroke = 1 if bold and face is None else 0  # no bold face found: thickened by a stroke, as before
    face = face or font(size)
    left, top, right, bottom = face.getbbox(s, anchor=anchor, stroke_width=stroke)
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(mask).text(
        (-left, -top), s, fill=255, font=face, anchor=anchor, stroke_width=stroke, stroke_fill=255
    )
    return mask, left, top


Colour = tuple[int, int, int]

INK: Colour = (40, 40, 48)
MUTED: Colour = (120, 120, 130)
PAPER: Colour = (250, 247, 240)
TABLE: Colour = (233, 240, 226)
PANEL: Colour = (255, 255, 255)
LINE: Colour = (190, 190, 196)
HIGHLIGHT: Colour = (230, 120, 20)
CARD_BACK: Colour = (92, 110, 150)
HEADER: Colour = (60, 72, 96)


def mix(a: Colour, b: Colour, t: float) -> Colour:
    """`a` moved a fraction `t` of the way towards `b`."""
    return tuple(int(round(x + (y - x) * t)) for x, y in zip(a, b, strict=True))


def light(colour: Colour, t: float = 0.7) -> Colour:
    return mix(colour, (255, 255, 255), t)


def name_colour(name: str) -> Colour:
    """A stable, readable colour for any name (for things a game gave no colour)."""
    import zlib

    h = zlib.crc32(name.encode())
    return (60 + h % 150, 60 + (h >> 8) % 150, 60 + (h >> 16) % 150)


class Canvas:
    """A white-on-table drawing surface with the few shapes every game's picture uses."""

    def __init__(self, width: int, height: int, background: Colour = TABLE):
        require_pillow()
        from PIL import Image, ImageDraw

        self.width, self.height = int(width), int(height)
        self.image = Image.new("RGB", (self.width, self.height), background)
        self.draw = ImageDraw.Draw(self.image)

    def array(self) -> np.ndarray:
        """The picture as `(H, W, 3) uint8`."""
        return np.asarray(self.image, dtype=np.uint8).copy()

    # text
    def text(
        self,
        xy: tuple[float, float],
        s: str,
        size: int = 14,
        colour: Colour = INK,
        anchor: str = "la",
        bold: bool = False,
    ) -> None:
        mask, left, top = text_mask(s, size, anchor, bold)
        self.image.paste(colour, (int(round(xy[0])) + left, int(round(xy[1])) + top), mask)

    def text_width(self, s: str, size: int = 14, bold: bool = False) -> int:
        return text_mask(s, size, "la", bold)[0].width

    def seat_name(self, xy: tuple[float, float], title: str, right: float, winner: bool, size: int = 16, **kw) -> None:
        """A seat's name from `xy` (its left and middle) to `right`, with a "winner" badge right-aligned at `right`
        when `winner`: the name is fitted to the room left of the badge, so the two never overlap."""
        x, y = xy
        room = right - x
        if winner:
            self.text((right, y), "winner", size=12, colour=HIGHLIGHT, anchor="rm", bold=True)
            room -= self.text_width("winner", 12, bold=True) + 8
        self.text_fitted(xy, title, room, size=size, anchor="lm", **kw)

    def text_fitted(
        self, xy: tuple[float, float], s: str, width: int, size: int = 14, smallest: int = 11, **kw
    ) -> None:
        """`s` at the largest size from `size` down to `smallest` that fits `width` pixels (shortened with
        an ellipsis at `smallest` when none does): seat names with long agent labels."""
        while size > smallest and self.text_width(s, size) > width:
            size -= 1
        self.text(xy, self.fit(s, width, size), size=size, **kw)

    def fit(self, s: str, width: int, size: int = 14) -> str:
        """`s` shortened with an ellipsis to fit `width` pixels."""
        if self.text_width(s, size) <= width:
            return s
        while s and self.text_width(s + "…", size) > width:
            s = s[:-1]
        return s + "…"

    # shapes
    def box(self, box, fill: Colour = PANEL, outline: Colour | None = LINE, width: int = 1, radius: int = 6) -> None:
        self.draw.rounded_rectangle(box, radius=radius, fill=fill, outline=outline, width=width)

    def panel(self, box, title: str = "", fill: Colour = PANEL) -> None:
        """A framed area with a small title in its top-left corner."""
        self.box(box, fill=fill)
        if title:
            self.text((box[0] + 8, box[1] + 5), title, size=12, colour=MUTED)

    def header(self, title: str, status: str, right: str = "", height: int = 44) -> None:
        """The band at the top: game, status (phase, whose turn), and whose view this is."""
        self.draw.rectangle((0, 0, self.width, height), fill=HEADER)
        self.text((14, height // 2), title, size=20, colour=(255, 255, 255), anchor="lm")
        self.text(
            (14 + self.text_width(title, 18) + 24, height // 2), status, size=15, colour=(235, 235, 240), anchor="lm"
        )
        if right:
            self.text((self.width - 14, height // 2), right, size=14, colour=(255, 215, 140), anchor="rm")

    def card(
        self,
        box,
        title: str,
        value: str = "",
        colour: Colour = (200, 200, 200),
        face_down: bool = False,
        highlight: bool = False,
        dim: bool = False,
    ) -> None:
        """A playing card: a coloured band with `title`, a big `value`; or its back when `face_down`."""
        x0, y0, x1, y1 = box
        w = x1 - x0
        if face_down:
            self.box(box, fill=CARD_BACK, outline=INK, radius=5)
            self.box(
                (x0 + 4, y0 + 4, x1 - 4, y1 - 4), fill=mix(CARD_BACK, (255, 255, 255), 0.15), outline=None, radius=3
            )
            self.text(((x0 + x1) / 2, (y0 + y1) / 2), "?", size=max(10, w // 2), colour=(220, 226, 240), anchor="mm")
        else:
            body = light(colour, 0.8 if dim else 0.55)
            self.box(box, fill=body, outline=INK if not dim else LINE, radius=5)
            band = min(18, (y1 - y0) // 3)
            self.draw.rounded_rectangle((x0 + 1, y0 + 1, x1 - 1, y0 + band), radius=4, fill=colour)
            size = 11 if w >= 56 else 10
            self.text(
                ((x0 + x1) / 2, y0 + band / 2 + 1),
                self.fit(title, w - 4, size),
                size=size,
                colour=(255, 255, 255),
                anchor="mm",
            )
            if value:
                self.text(
                    ((x0 + x1) / 2, (y0 + band + y1) / 2),
                    value,
                    size=max(12, min(26, w // 2)),
                    colour=INK,
                    anchor="mm",
                    bold=True,
                )
        if highlight:
            self.draw.rounded_rectangle((x0 - 3, y0 - 3, x1 + 3, y1 + 3), radius=7, outline=HIGHLIGHT, width=3)

    def chip(self, xy, s: str, colour: Colour, size: int = 12) -> int:
        """A small rounded label; returns its width."""
        x, y = xy
        w = self.text_width(s, size) + 12
        self.box((x, y, x + w, y + size + 8), fill=light(colour, 0.5), outline=colour, radius=8)
        self.text((x + w / 2, y + (size + 8) / 2), s, size=size, anchor="mm")
        return w

    def counter(self, centre, n: int, colour: Colour, radius: int = 11) -> None:
        """A disc with a number (seeds, tokens)."""
        x, y = centre
        self.draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=colour, outline=INK)
        self.text((x, y), str(n), size=max(10, radius + 1), colour=(255, 255, 255), anchor="mm", bold=True)

    def marker(self, xy, colour: Colour = HIGHLIGHT, size: int = 8) -> None:
        """A small triangle pointing right (whose turn it is)."""
        x, y = xy
        self.draw.polygon([(x, y - size), (x + size * 1.4, y), (x, y + size)], fill=colour)


# --- captions -------------------------------------------------------------------------------------


def captioned(frame: np.ndarray, lines: Sequence[str], rows: int = 4, size: int = 14) -> np.ndarray:
    """`frame` with a band below it holding `lines` (the first `rows`, each shortened to fit the width;
    a last line says how many more were left out). The band's height depends on `rows` only, so the
    captioned frames of a game keep one size (GIFs need it)."""
    require_pillow()
    from PIL import Image

    lines = list(lines)
    if len(lines) > rows:
        lines = lines[: rows - 1] + [f"... and {len(lines) - rows + 1} more"]
    line_height = size + 6
    canvas = Canvas(frame.shape[1], frame.shape[0] + rows * line_height + 12, background=PAPER)
    canvas.image.paste(Image.fromarray(frame), (0, 0))
    for k, line in enumerate(lines):
        y = frame.shape[0] + 6 + k * line_height
        canvas.text((12, y), canvas.fit(line, frame.shape[1] - 24, size), size=size, colour=INK if k == 0 else MUTED)
    return canvas.array()


# --- files: PNG, animated GIF, strips -------------------------------------------------------------


def save_png(frame: np.ndarray, path: str | Path) -> Path:
    from PIL import Image

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(frame).save(path, format="PNG", optimize=True)  # a PNG whatever the file is called
    return path


def save_gif(frames: Sequence[np.ndarray], path: str | Path, fps: float = 2.0, scale: float = 1.0) -> Path:
    """An animated GIF of `frames` (all the same size), looping, `fps` frames a second."""
    require_pillow()
    from PIL import Image

    if not frames:
        raise ValueError("a GIF needs at least one frame")
    images = [_scaled(Image.fromarray(f), scale) for f in frames]
    palette = images[0].quantize(colors=255, method=Image.Quantize.MEDIANCUT)
    images = [im.quantize(palette=palette, dither=Image.Dither.NONE) for im in images]
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    images[0].save(
        path, format="GIF", save_all=True, append_images=images[1:], duration=int(1000 / fps), loop=0, optimize=True
    )
    return path


def _scaled(image, scale: float):
    if scale == 1.0:
        return image
    from PIL import Image

    return image.resize((max(1, int(image.width * scale)), max(1, int(image.height * scale))), Image.Resampling.LANCZOS)


def strip(frames: Sequence[np.ndarray], columns: int = 4, captions: Sequence[str] | None = None, scale: float = 0.5):
    """Frames tiled in a grid (row by row), scaled, each with an optional caption: `(H, W, 3) uint8`."""
    require_pillow()
    from PIL import Image

    if not frames:
        raise ValueError("a strip needs at least one frame")
    tiles = [_scaled(Image.fromarray(f), scale) for f in frames]
    w = max(t.width for t in tiles)
    h = max(t.height for t in tiles)
    cap = 20 if captions else 0
    columns = max(1, min(columns, len(tiles)))
    rows = (len(tiles) + columns - 1) // columns
    gap = 8
    canvas = Canvas(columns * (w + gap) + gap, rows * (h + cap + gap) + gap, background=PAPER)
    for k, tile in enumerate(tiles):
        x = gap + (k % columns) * (w + gap)
        y = gap + (k // columns) * (h + cap + gap)
        if captions:
            canvas.text((x, y + 2), captions[k], size=13)
        canvas.image.paste(tile, (x, y + cap))
    return canvas.array()


# --- human mode: a window when there is a display, text otherwise ----------------------------------


def display_available() -> bool:
    """Whether a window can be opened (a desktop session, or an X/Wayland display on Linux)."""
    if os.environ.get("FRUIT_ENVS_NO_WINDOW"):
        return False
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


class Window:
    """Shows pictures in a window (pygame, else matplotlib); `show` returns False when it cannot,
    and the caller prints text instead. Set FRUIT_ENVS_NO_WINDOW=1 to always get text."""

    def __init__(self, title: str = "fruit_envs"):
        self.title = title
        self._backend: str | None = None
        self._handle: Any = None
        self._failed = False

    def show(self, make_frame: Callable[[], np.ndarray]) -> bool:
        if self._failed or not display_available():
            return False
        try:
            frame = make_frame()
            if self._backend is None:
                self._open(frame)
            if self._backend == "pygame":
                self._show_pygame(frame)
            else:
                self._show_matplotlib(frame)
            return True
        except Exception:  # no usable window toolkit: fall back to text for good
            self._failed = True
            return False

    def _open(self, frame: np.ndarray) -> None:
        require_pillow()
        try:
            import pygame

            pygame.display.init()
            pygame.display.set_caption(self.title)
            self._handle = pygame.display.set_mode((frame.shape[1], frame.shape[0]))
            self._backend = "pygame"
            return
        except Exception:
            pass
        import matplotlib.pyplot as plt

        if "agg" in plt.get_backend().lower():
            raise RuntimeError("matplotlib has no interactive backend")
        plt.ion()
        fig, ax = plt.subplots(figsize=(frame.shape[1] / 100, frame.shape[0] / 100), dpi=100)
        fig.canvas.manager.set_window_title(self.title)
        ax.axis("off")
        fig.subplots_adjust(0, 0, 1, 1)
        self._handle = (fig, ax, ax.imshow(frame))
        self._backend = "matplotlib"

    def _show_pygame(self, frame: np.ndarray) -> None:
        import pygame

        if self._handle.get_size() != (frame.shape[1], frame.shape[0]):
            self._handle = pygame.display.set_mode((frame.shape[1], frame.shape[0]))
        pygame.event.pump()
        self._handle.blit(pygame.surfarray.make_surface(frame.transpose(1, 0, 2)), (0, 0))
        pygame.display.flip()

    def _show_matplotlib(self, frame: np.ndarray) -> None:
        import matplotlib.pyplot as plt

        fig, _, image = self._handle
        image.set_data(frame)
        fig.canvas.draw_idle()
        plt.pause(0.001)

    def close(self) -> None:
        if self._backend == "pygame":
            import pygame

            pygame.display.quit()
        elif self._backend == "matplotlib":
            import matplotlib.pyplot as plt

            plt.close(self._handle[0])
        self._backend, self._handle = None, None


def render_frame(env, title: str, state, i: int, seat: int | None):
    """What `env.render()` returns for its render mode: text, a picture, or None after showing it
    (`env._window` holds the window of human mode)."""
    if env.render_mode == "rgb_array":
        return picture(state, i, seat)
    if env.render_mode == "human":
        if env._window is None:
            env._window = Window(title)
        if not env._window.show(lambda: picture(state, i, seat)):
            print(text(state, i, seat))
        return None
    return text(state, i, seat)


def dumps(v: dict) -> str:
    """A view as canonical JSON (for comparing views in tests and logs)."""
    return json.dumps(v, sort_keys=True)


def example_position(game: str | GameSpec, num_players: int | None = None, seed: int = 0, at: float = 0.4):
    """A batch-of-1 state `at` (a fraction) of the way through a seeded random game, for examples."""
    from fruit_envs.core import rng as frng

    spec = get_spec(game)
    rules = spec.rules
    state = rules.init(spec.make_config(num_players), frng.keys_from_seed(seed, 1))
    gen = np.random.default_rng(seed)
    states = [state]
    while not state.done[0]:
        mask = rules.legal_mask(state)
        state, _ = rules.step(state, np.argmax(np.where(mask, gen.random(mask.shape), -1), axis=1))
        states.append(state)
    return states[int(at * (len(states) - 1))]


def write_examples(folder: str | Path, num_players: int = 3, seed: int = 0) -> list[Path]:
    """`<folder>/<game>.png` for every registered game: a mid-game position, full view (the README's)."""
    from fruit_envs.core.spec import registered_games

    written = []
    for spec in registered_games():
        players = num_players if num_players in spec.player_counts else spec.default_num_players
        state = example_position(spec, players, seed)
        written.append(save_png(picture(state, 0), Path(folder) / f"{spec.id}.png"))
    return written
