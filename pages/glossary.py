"""Glossary: every term the sections use, with its one meaning.
Its content is described once, in article/sections/."""

import ui

ui.show("glossary")
