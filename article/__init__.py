"""The article's content, described once: each section (a page of the app, a page of the static
site) as blocks — headings, texts with core's numbers, metrics, figures with their knobs, tables —
and the controls that move them. blocks.py: what a block is; sections/: the sections, a module
each; prose.py: their prose, Markdown files in prose/<lang>/; derive.py: byte counts written out as
sums. ui/article.py draws a section with Streamlit, publish/site/ writes it as HTML."""

from .blocks import (
           AppField,
           Ask,
           Block,
           Chart,
           Either,
           Heading,
           Metrics,
           Part,
           Reading,
           Table,
           Text,
           Title,
           Tool,
           run_section,
)
from .sections import SECTIONS, Section, article_title

__all__ = ["SECTIONS", "AppField", "Ask", "Block", "Chart", "Either", "Heading", "Metrics", "Part", "Reading",
           "Section", "Table", "Text", "Title", "Tool", "article_title", "run_section"]
