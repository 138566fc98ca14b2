"""A tiny llama-architecture GGUF model, written by the tests: random weights, a vocabulary of
bytes, letters and a few words, a chat template. It loads in llama.cpp in milliseconds and
writes gibberish, which is all the embedded provider's tests need of a model."""

from __future__ import annotations

import itertools
import string
from pathlib import Path

CHAT_TEMPLATE = (
    "{% for message in messages %}{{ message['role'] }}: {{ message['content'] }}\n"
    "{% endfor %}{% if add_generation_prompt %}assistant:{% endif %}"
)
WORDS = ("the", "file", "says", "read", "key", "days", "every", "tool", "answer", "done")


def vocabulary() -> tuple[list[str], list[float], list[int]]:
    """SentencePiece tokens, scores and types: unknown, BOS, EOS, the 256 byte tokens (so
    any text tokenizes), then letters, digits, punctuation, every pair and triple of
    lowercase letters and a few words, with their leading-space forms. English takes about
    two characters a token: agent-tui's instructions and tools ~15K tokens (bytes alone
    would take twice as many, and four times the time to read them)."""
    from gguf import TokenType

    tokens = ["<unk>", "<s>", "</s>"]
    types = [TokenType.UNKNOWN, TokenType.CONTROL, TokenType.CONTROL]
    tokens += [f"<0x{byte:02X}>" for byte in range(256)]
    types += [TokenType.BYTE] * 256
    pairs = ["".join(p) for p in itertools.product(string.ascii_lowercase, repeat=2)]
    triples = ["".join(p) for p in itertools.product(string.ascii_lowercase, repeat=3)]
    singles = [*string.ascii_letters, *string.digits, *".,:;!?'\"-_/()`{}[]<>#*=|"]
    pieces = list(dict.fromkeys([
        "▁", "▁▁", "▁▁▁▁", *singles, *(f"▁{c}" for c in singles), *WORDS,
        *(f"▁{word}" for word in WORDS), *pairs, *(f"▁{pair}" for pair in pairs), *triples]))
    tokens += pieces
    types += [TokenType.NORMAL] * len(pieces)
    scores = [0.0] * 259 + [-float(i) for i in range(len(pieces))]
    return tokens, scores, [int(t) for t in types]


def write_tiny_llama(path: Path, *, context_length: int = 1024, embedding: int = 64,
                     layers: int = 2, heads: int = 4, seed: int = 0) -> Path:
    """Write a llama-architecture GGUF of float32 random weights to ``path`` (~10 MB)."""
    import numpy as np
    from gguf import GGUFWriter

    rng = np.random.default_rng(seed)
    tokens, scores, types = vocabulary()
    feed_forward = embedding * 2

    def weights(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.05).astype(np.float32)

    writer = GGUFWriter(str(path), "llama")
    writer.add_name("tiny-test-llama")
    writer.add_context_length(context_length)
    writer.add_embedding_length(embedding)
    writer.add_block_count(layers)
    writer.add_feed_forward_length(feed_forward)
    writer.add_head_count(heads)
    writer.add_head_count_kv(heads)
    writer.add_rope_dimension_count(embedding // heads)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_file_type(0)  # all float32
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_unk_token_id(0)
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(False)
    writer.add_chat_template(CHAT_TEMPLATE)

    vocab = len(tokens)
    writer.add_tensor("token_embd.weight", weights(vocab, embedding))
    writer.add_tensor("output_norm.weight", np.ones(embedding, dtype=np.float32))
    writer.add_tensor("output.weight", weights(vocab, embedding))
    for block in range(layers):
        prefix = f"blk.{block}."
        writer.add_tensor(prefix + "attn_norm.weight", np.ones(embedding, dtype=np.float32))
        for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
            writer.add_tensor(prefix + name + ".weight", weights(embedding, embedding))
        writer.add_tensor(prefix + "ffn_norm.weight", np.ones(embedding, dtype=np.float32))
        writer.add_tensor(prefix + "ffn_gate.weight", weights(feed_forward, embedding))
        writer.add_tensor(prefix + "ffn_up.weight", weights(feed_forward, embedding))
        writer.add_tensor(prefix + "ffn_down.weight", weights(embedding, feed_forward))

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
