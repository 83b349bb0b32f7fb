"""The model zoo: real models from torchvision, transformers and timm, as PyTorch builds them.

Each `Case` builds one model with seeded random weights (nothing is downloaded: transformers
models come from small configs, torchvision and timm ones with `weights=None` /
`pretrained=False`) and its example inputs, and says how the archive is made: `script`
(torchvision, timm with `scriptable=True`) or `trace` (transformers with `torchscript=True`).
Inputs are small (32-96 px images, 8-16 tokens) so that the whole zoo runs in a few minutes.
Imported only by the generator, which imports torch and the model libraries first.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Tuple


@dataclass(frozen=True)
class Case:
    name: str
    library: str          # "torchvision" | "transformers" | "timm": skipped when not importable
    how: str              # "script" | "trace"
    build: Callable[[], Tuple[Any, tuple]]   # -> (module in eval mode, example inputs)
    rtol: float = 1e-4    # relative to the output's largest magnitude (see test_zoo)
    # Run in float64 (weights and inputs): for models whose discrete decisions (which boxes
    # survive) PyTorch's own float32 rounding decides (see _ILL_CONDITIONED)
    float64: bool = False


def _img(*shape):
    import torch
    return torch.rand(*shape)


# --- torchvision ------------------------------------------------------------------------------
def _tv(fn_name: str, size: int = 64, **kw):
    def build():
        import torchvision.models as M
        m = getattr(M, fn_name)(weights=None, **kw)
        return m, (_img(1, 3, size, size),)
    return build


def _tv_vit():
    from torchvision.models.vision_transformer import VisionTransformer
    m = VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32,
                          mlp_dim=64, num_classes=10)
    return m, (_img(1, 3, 32, 32),)


def _tv_swin():
    from torchvision.models.swin_transformer import SwinTransformer
    m = SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2], num_heads=[2, 2],
                        window_size=[4, 4], stochastic_depth_prob=0.0, num_classes=10)
    return m, (_img(1, 3, 64, 64),)


def _tv_swin_v2():
    from torchvision.models.swin_transformer import (PatchMergingV2, SwinTransformer,
                                                     SwinTransformerBlockV2)
    m = SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2], num_heads=[2, 2],
                        window_size=[4, 4], stochastic_depth_prob=0.0, num_classes=10,
                        block=SwinTransformerBlockV2, downsample_layer=PatchMergingV2)
    return m, (_img(1, 3, 64, 64),)


def _tv_maxvit():
    from torchvision.models.maxvit import MaxVit
    m = MaxVit(input_size=(64, 64), stem_channels=16, partition_size=2, block_channels=[16, 32],
               block_layers=[1, 1], head_dim=8, stochastic_depth_prob=0.0, num_classes=10)
    return m, (_img(1, 3, 64, 64),)


def _tv_r3d():
    import torchvision.models.video as V
    return V.r3d_18(weights=None, num_classes=10), (_img(1, 3, 4, 32, 32),)


def _tv_raft():
    import torchvision.models.optical_flow as F
    m = F.raft_small(weights=None)
    return m, (_img(1, 3, 128, 128), _img(1, 3, 128, 128), 2)


def _tv_seg(fn_name: str, **kw):
    def build():
        import torchvision.models.segmentation as S
        m = getattr(S, fn_name)(weights=None, weights_backbone=None, num_classes=4, **kw)
        return m, (_img(1, 3, 64, 64),)
    return build


def _tv_det(fn_name: str, **kw):
    def build():
        import torchvision.models.detection as D
        m = getattr(D, fn_name)(weights=None, weights_backbone=None, **kw)
        # 64x64 stays 64x64 (a multiple of 32): no zero padding, whose identical features
        # would give boxes equal scores, and NMS keeps one of equal scores by sort order
        return m, ([_img(3, 64, 64)],)
    return build


_DET_SIZE = dict(min_size=64, max_size=96)

# Mask R-CNN and Keypoint R-CNN (ResNet-50 FPN) with random weights are ill-conditioned in
# float32: PyTorch's float32 detections differ from its own float64 ones (measured: boxes 61 px
# apart, other labels), because float32 rounding of the backbone's sums (2e-4 of the largest
# feature, in PyTorch as in any other order of summation) moves a proposal across the RPN's NMS
# and top-k cuts. A float32 comparison would test which way rounding falls, not the
# computation; in float64 every stage matches to ~1e-10 and so must the detections.
_ILL_CONDITIONED = dict(float64=True)


# --- transformers -----------------------------------------------------------------------------
def _ids(vocab: int = 99, n: int = 12):
    import torch
    return torch.randint(0, vocab, (1, n))


def _hf_text(config_name: str, model_name: str, **cfg):
    def build():
        import torch
        import transformers as T
        c = getattr(T, config_name)(torchscript=True, return_dict=False, **cfg)
        m = getattr(T, model_name)(c)
        ids = _ids()
        mask = torch.ones_like(ids)
        mask[0, -3:] = 0
        return m, (ids, mask)
    return build


_BERT = dict(vocab_size=99, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
             intermediate_size=64, max_position_embeddings=64)


def _hf_gpt2():
    import transformers as T
    c = T.GPT2Config(vocab_size=99, n_embd=32, n_layer=2, n_head=2, n_positions=64,
                     torchscript=True, return_dict=False, use_cache=False)
    return T.GPT2Model(c), (_ids(),)  # GPT2LMHeadModel fails with return_dict=False


def _t5_config(return_dict: bool = False):
    import transformers as T
    return T.T5Config(vocab_size=99, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=2,
                      relative_attention_num_buckets=8, torchscript=True, return_dict=return_dict,
                      use_cache=False)


def _hf_t5_encoder():
    import transformers as T
    return T.T5EncoderModel(_t5_config()), (_ids(),)


def _hf_t5():
    import torch
    import transformers as T

    class Seq2Seq(torch.nn.Module):
        """T5Model returning a tuple: with return_dict=False, transformers 5's T5Model fails
        (it reads `.last_hidden_state` of a tuple), so the wrapper asks for a dict."""

        def __init__(self):
            super().__init__()
            self.model = T.T5Model(_t5_config(return_dict=True))

        def forward(self, input_ids, attention_mask, decoder_input_ids):
            out = self.model(input_ids=input_ids, attention_mask=attention_mask,
                             decoder_input_ids=decoder_input_ids, return_dict=True)
            return out.last_hidden_state, out.encoder_last_hidden_state

    ids = _ids()
    return Seq2Seq(), (ids, torch.ones_like(ids), _ids(n=6))


def _hf_vit():
    import transformers as T
    c = T.ViTConfig(image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2,
                    num_attention_heads=2, intermediate_size=64, torchscript=True,
                    return_dict=False)
    return T.ViTModel(c), (_img(1, 3, 32, 32),)


def _hf_whisper_encoder():
    import transformers as T
    c = T.WhisperConfig(vocab_size=99, num_mel_bins=16, d_model=32, encoder_layers=2,
                        encoder_attention_heads=2, decoder_layers=1, decoder_attention_heads=2,
                        encoder_ffn_dim=64, decoder_ffn_dim=64, max_source_positions=16,
                        max_target_positions=16, pad_token_id=0, bos_token_id=1,
                        eos_token_id=2, decoder_start_token_id=1, torchscript=True,
                        return_dict=False)
    return T.WhisperModel(c).get_encoder(), (_img(1, 16, 32),)


def _hf_wav2vec2():
    import transformers as T
    c = T.Wav2Vec2Config(vocab_size=32, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                         intermediate_size=64, conv_dim=(16, 16), conv_stride=(5, 2),
                         conv_kernel=(10, 3), num_conv_pos_embeddings=16,
                         num_conv_pos_embedding_groups=2, torchscript=True, return_dict=False)
    return T.Wav2Vec2Model(c), (_img(1, 800),)


# --- timm -------------------------------------------------------------------------------------
def _timm(name: str, size: int = 64, **kw):
    def build():
        import timm
        m = timm.create_model(name, pretrained=False, scriptable=True, num_classes=10, **kw)
        return m, (_img(1, 3, size, size),)
    return build


CASES = [
    Case("tv_resnet18", "torchvision", "script", _tv("resnet18")),
    Case("tv_mobilenet_v2", "torchvision", "script", _tv("mobilenet_v2")),
    Case("tv_mobilenet_v3_small", "torchvision", "script", _tv("mobilenet_v3_small")),
    Case("tv_efficientnet_b0", "torchvision", "script", _tv("efficientnet_b0")),
    Case("tv_regnet_y_400mf", "torchvision", "script", _tv("regnet_y_400mf")),
    Case("tv_convnext_tiny", "torchvision", "script", _tv("convnext_tiny")),
    Case("tv_densenet121", "torchvision", "script", _tv("densenet121")),
    Case("tv_googlenet", "torchvision", "script",
         _tv("googlenet", aux_logits=False, init_weights=True)),
    Case("tv_shufflenet_v2_x0_5", "torchvision", "script", _tv("shufflenet_v2_x0_5")),
    Case("tv_squeezenet1_1", "torchvision", "script", _tv("squeezenet1_1")),
    Case("tv_mnasnet0_5", "torchvision", "script", _tv("mnasnet0_5")),
    Case("tv_vit", "torchvision", "script", _tv_vit),
    Case("tv_swin", "torchvision", "script", _tv_swin),
    Case("tv_swin_v2", "torchvision", "script", _tv_swin_v2),
    Case("tv_maxvit", "torchvision", "script", _tv_maxvit),
    Case("tv_r3d_18", "torchvision", "script", _tv_r3d),
    Case("tv_raft_small", "torchvision", "script", _tv_raft),
    Case("tv_fcn_resnet50", "torchvision", "script", _tv_seg("fcn_resnet50")),
    Case("tv_deeplabv3_mobilenet", "torchvision", "script",
         _tv_seg("deeplabv3_mobilenet_v3_large")),
    Case("tv_lraspp_mobilenet", "torchvision", "script", _tv_seg("lraspp_mobilenet_v3_large")),
    Case("tv_fasterrcnn_mobilenet", "torchvision", "script",
         _tv_det("fasterrcnn_mobilenet_v3_large_fpn", num_classes=5, **_DET_SIZE)),
    Case("tv_maskrcnn_resnet50", "torchvision", "script",
         _tv_det("maskrcnn_resnet50_fpn", num_classes=5, **_DET_SIZE), **_ILL_CONDITIONED),
    Case("tv_keypointrcnn_resnet50", "torchvision", "script",
         _tv_det("keypointrcnn_resnet50_fpn", num_classes=2, num_keypoints=5, **_DET_SIZE),
         **_ILL_CONDITIONED),
    Case("tv_retinanet_resnet50", "torchvision", "script",
         _tv_det("retinanet_resnet50_fpn", num_classes=5, **_DET_SIZE)),
    Case("tv_ssdlite320", "torchvision", "script",
         _tv_det("ssdlite320_mobilenet_v3_large", num_classes=5)),
    Case("hf_bert", "transformers", "trace", _hf_text("BertConfig", "BertModel", **_BERT)),
    Case("hf_distilbert", "transformers", "trace",
         _hf_text("DistilBertConfig", "DistilBertModel", vocab_size=99, dim=32, n_layers=2,
                  n_heads=2, hidden_dim=64, max_position_embeddings=64)),
    Case("hf_roberta", "transformers", "trace",
         _hf_text("RobertaConfig", "RobertaModel", pad_token_id=1, **_BERT)),
    Case("hf_gpt2", "transformers", "trace", _hf_gpt2),
    Case("hf_t5_encoder", "transformers", "trace", _hf_t5_encoder),
    Case("hf_t5", "transformers", "trace", _hf_t5),
    Case("hf_vit", "transformers", "trace", _hf_vit),
    Case("hf_whisper_encoder", "transformers", "trace", _hf_whisper_encoder),
    Case("hf_wav2vec2", "transformers", "trace", _hf_wav2vec2),
    Case("timm_resnet18", "timm", "script", _timm("resnet18")),
    Case("timm_efficientnet_b0", "timm", "script", _timm("efficientnet_b0")),
    Case("timm_mobilenetv3_small", "timm", "script", _timm("mobilenetv3_small_100")),
    Case("timm_convnext_atto", "timm", "script", _timm("convnext_atto")),
    Case("timm_vit_tiny", "timm", "script", _timm("vit_tiny_patch16_224", size=32, img_size=32)),
]
