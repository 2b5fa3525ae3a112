"""A figure's animation as a video for a talk: each step's still (figures/animation.py, the
static figure on the canvas that holds every step; at a slide size, each step a slide, all
laid out alike) rendered to PNG through the warm kaleido server (publish/export.image), then
encoded by imageio — GIF through Pillow, MP4 (H.264, yuv420p, which every player takes)
through the ffmpeg binary that imageio-ffmpeg ships.

A video has no transparency: a transparent look is laid on white.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np
import plotly.graph_objects as go

from figures import Canvas, slide_size_of, slide_stills, stills

from .export import image

VIDEO_FORMATS = ("gif", "mp4")
FPS_RANGE = (0.1, 30.0)  # a GIF stores delays in 1/100 s: past 30 fps they round too far


def frames(figure_id: str, values: dict, *, theme: str = "light", font_scale: float = 1.0, width: int | None = None,
           height: int | None = None, progress: Callable[[int, int], None] | None = None) -> list[np.ndarray]:
    """One RGB image per step, all width × height pixels (default: the canvas's), sides even
    (H.264 in yuv420p halves them)."""
    figs = pictures(figure_id, values, theme=theme, font_scale=font_scale, width=width, height=height)
    width, height = width or figs[0].layout.width, height or figs[0].layout.height
    width, height = width + width % 2, height + height % 2
    out = []
    for i, fig in enumerate(figs, 1):
        out.append(_rgb(image(fig, "png", width=width, height=height)))
        if progress:
            progress(i, len(figs))
    return out


def pictures(figure_id: str, values: dict, *, theme: str = "light", font_scale: float = 1.0,
             width: int | None = None, height: int | None = None) -> list[go.Figure]:
    """The figures a video's frames render: at a slide size (SLIDE_SIZES) each step a slide, all
    laid out alike; else the steps on their canvas, which the image stretches to the size."""
    if slide_size_of(width, height):
        return slide_stills(figure_id, Canvas(slide=(width, height), font_scale=font_scale, theme=theme), **values)[0]
    return stills(figure_id, Canvas(font_scale=font_scale, theme=theme), **values)[0]


def _rgb(png: bytes) -> np.ndarray:
    """A PNG as RGB, any transparency laid on white."""
    import imageio.v3 as iio

    a = iio.imread(png, extension=".png").astype(np.float32)
    if a.shape[-1] == 4:
        alpha = a[..., 3:] / 255
        a = a[..., :3] * alpha + 255 * (1 - alpha)
    return np.rint(a).astype(np.uint8)


def write(path: Path, images: Iterable[np.ndarray], fmt: str, fps: float) -> None:
    """Encode images as a looping GIF or an MP4 at `fps` frames per second."""
    import imageio.v3 as iio

    if fmt not in VIDEO_FORMATS:
        raise ValueError(f"unknown video format {fmt!r}; choose from {', '.join(VIDEO_FORMATS)}")
    if not FPS_RANGE[0] <= fps <= FPS_RANGE[1]:
        raise ValueError(f"fps must be from {FPS_RANGE[0]:g} to {FPS_RANGE[1]:g}, got {fps:g}")
    images = list(images)
    if fmt == "gif":
        iio.imwrite(path, images, extension=".gif", duration=1000 / fps, loop=0)
    else:  # sides are even already: no rescaling to ffmpeg's default 16-pixel blocks
        iio.imwrite(path, images, plugin="FFMPEG", extension=".mp4", fps=fps, codec="libx264",
                    pixelformat="yuv420p", quality=8, macro_block_size=2, ffmpeg_log_level="error")
