"""The binary family: input that is not text, never decoded.

    optimizer.py   one line with size and sha256, the bytes behind a ref
"""
