// The object that carries the test suite's precompiled header (see
// CMakeLists.txt): the header is compiled once from this target's flags and
// reused by every unit.
