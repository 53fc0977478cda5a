"""The report in a browser: one offline HTML page (:mod:`.document`), its overview sections
(:mod:`.sections`) and the notebook cell (:mod:`.fragment`). No torch."""
