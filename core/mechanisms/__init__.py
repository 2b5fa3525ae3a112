"""The seeded runs behind the mechanism figures (MLA, the indexers, CSA/HCA, CSA2, CED, token-axis
compression): small numpy models of each mechanism, apart from the cost model, which never imports them."""
