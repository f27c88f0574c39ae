# tests: headers (filled in by its owner)
