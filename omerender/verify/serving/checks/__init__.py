"""The serving checks, one module each; ``omerender.verify.serving.registry`` lists them."""
