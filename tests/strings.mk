# tests: strings (filled in by its owner)
