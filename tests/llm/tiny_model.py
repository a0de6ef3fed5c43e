"""Write a tiny language model as a GGUF file for llama.cpp's server: a one-layer llama of random weights over a
byte vocabulary. It knows nothing; under the JSON Schema a request gives, llama.cpp's grammar makes its replies valid
JSON of that schema, so the tests exercise the whole path (a real server, real structured output, real token
counts) without downloading weights. Run with the interpreter that has `gguf` (CROWDSET_LLM_PYTHON):

    python tests/llm/tiny_model.py OUT.gguf [SEED]
"""

import sys

import gguf
import numpy as np

EMBEDDING, HEADS, FEED_FORWARD, CONTEXT = 32, 2, 64, 8192


def main(out: str, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    # Unknown, begin and end, then one token a byte: any text is its UTF-8 bytes (SentencePiece's byte fallback).
    tokens = ["<unk>", "<s>", "</s>", *(f"<0x{byte:02X}>" for byte in range(256))]
    types = [gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL,
             *([gguf.TokenType.BYTE] * 256)]
    vocab = len(tokens)
    writer = gguf.GGUFWriter(out, "llama")
    writer.add_name("crowdset tiny test model")
    writer.add_context_length(CONTEXT)
    writer.add_embedding_length(EMBEDDING)
    writer.add_block_count(1)
    writer.add_feed_forward_length(FEED_FORWARD)
    writer.add_head_count(HEADS)
    writer.add_head_count_kv(HEADS)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_rope_dimension_count(EMBEDDING // HEADS)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores([0.0] * vocab)
    writer.add_token_types(types)
    writer.add_unk_token_id(0)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(False)

    def weights(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.2).astype(np.float32)

    writer.add_tensor("token_embd.weight", weights(vocab, EMBEDDING))
    writer.add_tensor("output_norm.weight", np.ones(EMBEDDING, dtype=np.float32))
    writer.add_tensor("output.weight", weights(vocab, EMBEDDING))
    writer.add_tensor("blk.0.attn_norm.weight", np.ones(EMBEDDING, dtype=np.float32))
    for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
        writer.add_tensor(f"blk.0.{name}.weight", weights(EMBEDDING, EMBEDDING))
    writer.add_tensor("blk.0.ffn_norm.weight", np.ones(EMBEDDING, dtype=np.float32))
    writer.add_tensor("blk.0.ffn_gate.weight", weights(FEED_FORWARD, EMBEDDING))
    writer.add_tensor("blk.0.ffn_up.weight", weights(FEED_FORWARD, EMBEDDING))
    writer.add_tensor("blk.0.ffn_down.weight", weights(EMBEDDING, FEED_FORWARD))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 0)
