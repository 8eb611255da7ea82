// A test plugin that needs a symbol nothing defines, so RTLD_NOW fails.
extern "C" int xffi_test_symbol_nobody_defines(int);

extern "C" __attribute__((visibility("default"))) int uses_missing(int x) {
  return xffi_test_symbol_nobody_defines(x);
}
