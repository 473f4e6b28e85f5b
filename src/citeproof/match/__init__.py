"""The pure quote matcher: normalisation with an offset map, exact search, the closest
passage, ellipsis fragments.  No network, disk or clock here."""
