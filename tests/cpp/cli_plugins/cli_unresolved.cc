// A library the dynamic linker refuses (RTLD_NOW): it needs a symbol
// nothing defines, so `xffi run --plugin` must show the linker's message.
extern "C" int xffi_cli_test_symbol_nobody_defines(int);

extern "C" __attribute__((visibility("default"))) int cli_uses_missing(int x) {
  return xffi_cli_test_symbol_nobody_defines(x);
}
