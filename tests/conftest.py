"""AppTest reads .streamlit/config.toml, which redacts error details for a hosted audience;
tests want the real message when a page raises."""

from streamlit import config

config.set_option("client.showErrorDetails", "full")
