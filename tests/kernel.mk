# tests: kernel (filled in by its owner)
