// The deterministic routing simulation (written below).
