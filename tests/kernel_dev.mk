# umad kernel: the device files' kernel semantics, driven by real system calls.
