"""hetccl: collectives across NVIDIA and AMD GPUs.

`import hetccl.torch` registers the torch.distributed backend "hetccl".
"""
