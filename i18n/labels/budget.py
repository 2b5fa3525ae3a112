"""Labels of the memory budget figure (one GPU's memory under the planner's rule, vLLM and SGLang), in
Korean and English (i18n.t)."""
# ruff: noqa: E501  (a table of labels: one label per line reads better than wrapped strings)

TEXT: dict[str, dict[str, str]] = {
    "bud.name": {"ko": "GPU 한 장의 메모리 예산", "en": "Memory budget of one GPU"},
    "bud.title": {"ko": "{g}에서 {m}: GPU 한 장의 메모리", "en": "{m} on {g}: one GPU's memory"},
    "bud.sub": {"ko": "드라이버가 알리는 메모리 {mib} MiB, 곧 {total} (데이터시트 {sheet}) · {par} · 가중치 파라미터당 {b} B", "en": "the driver reports {mib} MiB, that is {total} (data sheet: {sheet}) · {par} · weights {b} B per parameter"},
    "bud.sub.sheet": {"ko": "데이터시트 메모리 {total} · {par} · 가중치 파라미터당 {b} B", "en": "the data sheet's {total} · {par} · weights {b} B per parameter"},
    "bud.assumed": {"ko": "가정: 런타임 {r}, vLLM의 CUDA graph {g} · vLLM의 activation 최고치는 토큰 {t}개 한 번의 forward와 sampler로 추정", "en": "assumed: runtime {r}, vLLM's CUDA graphs {g} · vLLM's activation peak estimated from a forward pass of {t} tokens and the sampler"},
    "bud.x": {"ko": "GPU 한 장의 메모리 ({u})", "en": "one GPU's memory ({u})"},
    "bud.model": {"ko": "모델", "en": "model"},
    "bud.eng.theory": {"ko": "이론(처리량 계획)", "en": "theory (the planner)"},
    "bud.eng.vllm": {"ko": "vLLM 0.34.0", "en": "vLLM 0.34.0"},
    "bud.eng.sglang": {"ko": "SGLang 0.5.23", "en": "SGLang 0.5.23"},
    "bud.head": {"ko": "KV pool {kv}", "en": "KV pool {kv}"},
    "bud.head.states": {"ko": "KV pool {kv} + 상태 pool {s}", "en": "KV pool {kv} + states pool {s}"},
    "bud.nofit": {"ko": "들어가지 않음: {short} 모자람", "en": "does not fit: short by {short}"},
    "bud.none": {"ko": "나눌 수 없음", "en": "cannot be split"},
    "bud.part.runtime": {"ko": "런타임(가정)", "en": "runtime (assumed)"},
    "bud.part.weights": {"ko": "가중치", "en": "weights"},
    "bud.part.activations": {"ko": "activation", "en": "activations"},
    "bud.part.graphs": {"ko": "CUDA graph", "en": "CUDA graphs"},
    "bud.part.margin": {"ko": "여유분", "en": "margin"},
    "bud.part.reserve": {"ko": "일괄 예약", "en": "flat reserve"},
    "bud.part.kv": {"ko": "KV pool", "en": "KV pool"},
    "bud.part.states": {"ko": "상태 pool", "en": "states pool"},
    "bud.part.left": {"ko": "남는 메모리", "en": "left"},
    "bud.left.theory": {"ko": "데이터시트 밖 {v}", "en": "{v} beyond the data sheet"},
    "bud.value": {"ko": "{p} {v}", "en": "{p} {v}"},
    "bud.hover": {"ko": "{e} · {p}: {b}", "en": "{e} · {p}: {b}"},
}
