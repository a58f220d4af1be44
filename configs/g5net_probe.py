"""gem5 config: describe this gem5 build as one JSON line, for `g5net doctor`.

    gem5.opt --quiet --outdir=TMP configs/g5net_probe.py

prints `G5NET-PROBE {...}` (the contract's PROBE_MARK): version, ISAs, Ruby
protocol, whether classic caches and the KVM CPU are built in. Builds no
system and simulates nothing.
"""

import json

import m5.objects
from _m5.core import gem5Version  # gem5's own module, as the standard library uses it
from m5.defines import buildEnv

from g5net.contract import gem5 as contract

isas = sorted(k[len("USE_"):-len("_ISA")].lower() for k, v in buildEnv.items()
              if k.startswith("USE_") and k.endswith("_ISA") and v)
print(contract.PROBE_MARK + " " + json.dumps({
    "version": gem5Version,
    "isas": isas,
    "protocol": str(buildEnv.get("PROTOCOL", "")),
    "classic_caches": hasattr(m5.objects, "Cache"),
    "kvm_cpu": hasattr(m5.objects, "X86KvmCPU"),
}))
