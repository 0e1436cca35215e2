"""tritonrl runner: the only Python in the product (loads and runs reference and candidate code)."""
