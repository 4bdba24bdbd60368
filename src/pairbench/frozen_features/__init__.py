"""Training stage 2: small STS models on the frozen features of a language model.

A frozen language model runs once per (model, sentence set) and its pooled hidden states are
cached (:mod:`.latents`); everything after that reads the caches only:

- :mod:`.config`        the stage plan for ``workflow/rules/frozen_features.smk`` (cross-references checked);
- :mod:`.sentences`     reading sentence sets (text files, tables, STS pairs, dataset splits);
- :mod:`.frozen_lm`     the frozen language model: loading, pooling, batched forward passes;
- :mod:`.latents`       extraction of per-layer latents and :class:`~.latents.LatentCache`;
- :mod:`.autoencoders`  one autoencoder per layer and its pretraining;
- :mod:`.model`         the siamese layerwise STS model and its losses;
- :mod:`.data`          STS pairs resolved against a cache, correlations;
- :mod:`.train`         training with dev selection, the run's model, metrics and predictions;
- :mod:`.checkpoints`   resuming a killed training job from its last finished epoch;
- :mod:`.ablation`      the study's progression on the same latents;
- :mod:`.study`         trained runs scoring the compositional study's suites from cached latents;
- :mod:`.report`        tables and figures.
"""
