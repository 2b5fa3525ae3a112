"""`python -m figures …`, the commands' old name: they live in publish/ now (`python -m publish …`).
An entry point, not a module: nothing imports it, and it hands the command over to publish
without importing it, so figures/ stays below the package that writes figures out."""

import runpy

runpy.run_module("publish", run_name="__main__", alter_sys=True)
