"""INVENTED works for the manuscript tests, from the invented world of ``tests/refs_world.py``
(the DOIs 10.5555/invented.world.N): none of them is a real publication."""

from __future__ import annotations

from typing import Any

HALLOWAY: dict[str, Any] = {
    "id": "halloway2021",
    "type": "article-journal",
    "title": "Compost temperature and earthworm density in invented allotments",
    "author": [
        {"family": "Halloway", "given": "Wren"},
        {"family": "Okonkwo-Reyes", "given": "Tamsin"},
    ],
    "issued": {"date-parts": [[2021, 3, 4]]},
    "container-title": "Invented Journal of Soil Ecology",
    "DOI": "10.5555/invented.world.1",
}
BRENNAN: dict[str, Any] = {  # as tests/refs_world.py's CSL_ITEMS has it
    "id": "brennan2020",
    "type": "article-journal",
    "title": "Rainwater harvesting for invented urban gardens",
    "author": [{"family": "Brennan", "given": "Aoife"}, {"family": "Mwangi", "given": "Peter"}],
    "issued": {"date-parts": [[2020, 6, 15]]},
    "container-title": "Invented Journal of Urban Water",
    "PMID": "99930002",
}
ADEYEMI: dict[str, Any] = {
    "id": "adeyemi2022",
    "type": "article-journal",
    "title": "Pollinator visits to invented rooftop meadows",
    "author": [{"family": "Adeyemi", "given": "Folake"}, {"family": "Novak", "given": "Lenka"}],
    "issued": {"date-parts": [[2022]]},
    "container-title": "Invented Urban Ecology",
}
QUILL: dict[str, Any] = {
    "id": "quill2022",
    "type": "article-journal",
    "title": "Biochar doubles invented tomato yields",
    "author": [{"family": "Quill", "given": "Dorian"}, {"family": "Marsh", "given": "Esme"}],
    "issued": {"date-parts": [[2022]]},
    "container-title": "Invented Journal of Soil Ecology",
    "DOI": "10.5555/invented.world.7",
}

VANCOUVER = [
    "Halloway W, Okonkwo-Reyes T. Compost temperature and earthworm density in invented "
    "allotments. Invented Journal of Soil Ecology. 2021;4(2):e0101. doi:10.5555/invented.world.1",
    "Brennan A, Mwangi P. Rainwater harvesting for invented urban gardens. Invented Journal of "
    "Urban Water. 2020;7:12-19. doi:10.5555/invented.world.2",
    "Adeyemi F, Novak L. Pollinator visits to invented rooftop meadows. Invented Urban Ecology. "
    "2022;9(1):33-41. doi:10.5555/invented.world.3",
]
APA = [
    "Adeyemi, F., & Novak, L. (2022). Pollinator visits to invented rooftop meadows. Invented "
    "Urban Ecology, 9(1), 33-41.",
    "Brennan, A., & Mwangi, P. (2020). Rainwater harvesting for invented urban gardens. "
    "Invented Journal of Urban Water, 7, 12-19.",
    "Halloway, W., & Okonkwo-Reyes, T. (2021a). Compost temperature and earthworm density in "
    "invented allotments. Invented Journal of Soil Ecology, 4(2), e0101.",
    "Halloway, W., & Okonkwo-Reyes, T. (2021b). Worm counts in invented compost heaps. Invented "
    "Journal of Soil Ecology, 4(3), e0102.",
    "Sato, K., Lindqvist, M., & Novak, L. (2019). Mycorrhizal networks under invented orchard "
    "cover crops. Invented Journal of Orchard Science, 11, 201-210.",
]

BIB = r"""
@article{halloway2021,
  author = {Halloway, Wren and Okonkwo-Reyes, Tamsin},
  title = {Compost temperature and earthworm density in invented allotments},
  journal = {Invented Journal of Soil Ecology},
  year = {2021},
  doi = {10.5555/invented.world.1}
}
@article{brennan2020,
  author = {Brennan, Aoife and Mwangi, Peter},
  title = {Rainwater harvesting for invented urban gardens},
  journal = {Invented Journal of Urban Water},
  year = {2020},
  doi = {10.5555/invented.world.2}
}
@article{adeyemi2022,
  author = {Adeyemi, Folake and Novak, Lenka},
  title = {Pollinator visits to invented rooftop meadows},
  journal = {Invented Urban Ecology},
  year = {2022}
}
@book{ashworth2018,
  author = {Ashworth, Clara},
  title = {A field guide to invented hedgerow birds},
  publisher = {Invented Natural History Press},
  year = {2018}
}
@article{unused2000,
  author = {Nobody, Anna},
  title = {A library entry the paper never cites},
  journal = {Invented Letters},
  year = {2000}
}
"""
