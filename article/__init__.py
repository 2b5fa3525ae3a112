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
from .prose import notation
from .sections import SECTIONS, Section, article_title
from .sections.any_model import HF_EXAMPLE, design_name, variant_source

__all__ = ["HF_EXAMPLE", "SECTIONS", "AppField", "Ask", "Block", "Chart", "Either", "Heading", "Metrics", "Part",
           "Reading", "Section", "Table", "Text", "Title", "Tool", "article_title", "design_name", "notation",
           "run_section", "variant_source"]
