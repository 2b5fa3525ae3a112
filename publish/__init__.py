"""Figures written out for people: files in every format (SVG/PNG through kaleido, interactive
HTML, the numbers as CSV/JSON), zips, the talk deck, the play control's frames and videos, the
static site, the catalogue, and the command line that makes them (`python -m publish`).
figures/ builds a figure; this package writes it; nothing in figures/ imports it."""
