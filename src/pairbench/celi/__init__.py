"""Training stage 3: CELI, a cross-encoder with late interaction (Zhang, Li, Lin, NAACL 2024), and
its monoBERT (``cls``) and mean-pooling baselines, reranking BM25 candidates.

Modules, by concern (each rule's script calls one function):

- :mod:`.config`       TrainSettings of one run; the stage's cross-reference checks
- :mod:`.collections`  BEIR folders: reading, writing, the STS proxy (rule celi_collection)
- :mod:`.bm25`         the BM25 index and first stage (rule celi_bm25), hard-negative mining
- :mod:`.data`         training groups (rule celi_train_data) and the deterministic batch sampler
- :mod:`.trec`         TREC run files
- :mod:`.model`        CeliReranker, its heads, late interaction and the LCE loss
- :mod:`.train`        training with checkpoints and resume (rule celi_train)
- :mod:`.rerank`       reranking the BM25 candidates (rule celi_rerank)
- :mod:`.evaluate`     nDCG@10 and MRR@10 with ir-measures (rule celi_evaluate)
- :mod:`.report`       Table 2, MRR, the D_tok ablation, the query-length table and figure (rule celi_report)
- :mod:`.scoring`      the model-kind ``celi`` scorer of the compositional study

Nothing is imported here, so ``import pairbench.celi.trec`` does not load torch.
"""
