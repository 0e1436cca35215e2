"""Per-token character offsets of a generated completion, for /v1/reward's `token_offsets`.

The server splits plan from code on the completion's text and maps the plan onto tokens by these
offsets (a token belongs to the span its first character is in; docs/rl.md, "Character to token
spans"). The offsets must describe the very token ids the policy sampled. Re-encoding the decoded
text is not safe: a sampled sequence is often not the tokenizer's canonical encoding of its own
text (BPE would merge differently), and then the re-encoded offsets belong to other tokens.

So the offsets come from the sampled ids themselves, for the text
`tokenizer.decode(ids, skip_special_tokens=True)`, which is what TRL hands its reward functions
and what verl's reward managers decode:
- byte-level BPE (GPT-2 style: Qwen, Llama 3, ...): each token's bytes are read from its vocabulary
  string, so the offsets are exact and cost O(n). Special tokens (skipped by the decode) get an
  empty range where they stand;
- any other tokenizer, or when the byte-level reading does not reproduce the decoded text: each
  token's end is how far the decode of the prefix ids[:i+1] agrees with the full text. Exact for
  any decoder, O(n^2) in decode work.
Offsets are in code points of the text (Python string indices), the unit the server expects.
"""


def text_and_offsets(tokenizer, ids):
    """(text, [[begin, end], ...]) for the completion token ids `ids` (a list of ints).

    `begin` of token i is the end of token i-1 (the ranges tile the text in order); a token that
    adds no character of its own (a special token, or the first bytes of a character that the next
    token completes) has begin == end."""
    ids = [int(t) for t in ids]
    text = tokenizer.decode(ids, skip_special_tokens=True)
    offsets = _byte_level_offsets(tokenizer, ids, text)
    if offsets is None:
        offsets = _prefix_decode_offsets(tokenizer, ids, text)
    return text, offsets


def _byte_level_offsets(tokenizer, ids, text):
    """Exact offsets from each token's bytes, or None when the tokenizer is not byte-level BPE or
    its bytes do not decode to `text` (clean-up rules, normalisers, invalid UTF-8)."""
    decoder = _byte_decoder()
    special = set(getattr(tokenizer, "all_special_ids", ()) or ())
    added = {int(i): t.content for i, t in (getattr(tokenizer, "added_tokens_decoder", {}) or {}).items()}
    pieces = []
    for tid, tok in zip(ids, tokenizer.convert_ids_to_tokens(ids)):
        if tid in special:
            pieces.append(b"")
        elif tid in added:
            pieces.append(added[tid].encode())
        else:
            try:
                pieces.append(bytes(decoder[ch] for ch in tok))
            except (KeyError, TypeError):
                return None
    blob = b"".join(pieces)
    try:
        if blob.decode("utf-8") != text:
            return None
    except UnicodeDecodeError:
        return None
    # Code point index of every byte position: a byte inside a multi-byte character counts as that
    # character's start, so a token that begins mid-character belongs to that character.
    char_at = []
    for i, ch in enumerate(text):
        char_at.extend([i] * len(ch.encode()))
    char_at.append(len(text))
    offsets, pos = [], 0
    for piece in pieces:
        begin = char_at[pos]
        pos += len(piece)
        # A token ending mid-character ends where that character starts: the character is
        # counted once, at the token that completes it.
        offsets.append([begin, char_at[pos]])
    return _tile(offsets)


def _prefix_decode_offsets(tokenizer, ids, text):
    offsets, done = [], 0
    for i in range(len(ids)):
        prefix = tokenizer.decode(ids[: i + 1], skip_special_tokens=True)
        end = done
        limit = min(len(prefix), len(text))
        while end < limit and prefix[end] == text[end]:
            end += 1
        # A prefix ending in half a character decodes to U+FFFD there: the agreement stops before
        # it, and the token that completes the character takes it.
        offsets.append([done, end])
        done = end
    return offsets


def _tile(offsets):
    """Make begin_i = end_{i-1}: every character then belongs to exactly one token, in order."""
    out, done = [], 0
    for _, end in offsets:
        end = max(end, done)
        out.append([done, end])
        done = end
    return out


_BYTE_DECODER = None


def _byte_decoder():
    """The inverse of byte-level BPE's byte -> printable character table: the 188 printable
    Latin-1 bytes stand for themselves, the other 68 are shifted to code points 256 and up in
    byte order."""
    global _BYTE_DECODER
    if _BYTE_DECODER is None:
        printable = set(range(ord("!"), ord("~") + 1)) | set(range(0xA1, 0xAD)) | set(range(0xAE, 0x100))
        table, shift = {}, 0
        for b in range(256):
            if b in printable:
                table[chr(b)] = b
            else:
                table[chr(256 + shift)] = b
                shift += 1
        _BYTE_DECODER = table
    return _BYTE_DECODER
