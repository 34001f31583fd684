# bash completion for partita                                  -*- shell-script -*-
#
# Completes the commands, each command's options, the built-in model, graph
# and cluster names (asked of the partita being completed, so they are always
# those of the installed version), file names where an argument is a path,
# and the enumerated values of --dtype, --engine, --export, --objective and
# --units (pipeline's --dtype and --objective take their own).
# Both "--opt value" and "--opt=value" are completed.  Self-contained: it
# needs bash only, not the bash-completion package's helpers.
#
# Installed by `make install` as share/bash-completion/completions/partita;
# to try it from a checkout: source completion/partita.bash

# The partita being completed: the command word as typed where it runs
# (build/partita), else the one on PATH.
_partita_bin()
{
    local bin=${COMP_WORDS[0]}
    bin=${bin/#\~/$HOME}
    if [[ $bin == */* && -x $bin ]]; then
        printf '%s\n' "$bin"
    else
        command -v partita 2>/dev/null
    fi
}

# Built-in names: `partita models` prints transformers, a blank line, then a
# table of layer graphs; `partita clusters` one table.  Each table starts with
# a header line whose first word is "name" or "graph".
_partita_names()
{
    local bin
    bin=$(_partita_bin) || return
    [[ -n $bin ]] || return
    case $1 in
    models) "$bin" models 2>/dev/null | awk 'NF && $1 != "name" && $1 != "graph" { print $1 }' ;;
    graphs) "$bin" models 2>/dev/null | awk '$1 == "graph" { g = 1; next } g && NF { print $1 }' ;;
    clusters) "$bin" clusters 2>/dev/null | awk 'NF && $1 != "name" { print $1 }' ;;
    esac
}

# Adds file names matching the glob pattern $2 (and directories) for prefix $1.
_partita_files()
{
    local IFS=$'\n' f
    compopt -o filenames 2>/dev/null
    for f in $(compgen -f -- "$1"); do
        if [[ ${f##*/} == .* && ${1##*/} != .* ]]; then
            continue # hidden, unless asked for
        elif [[ -d $f ]]; then
            COMPREPLY+=("$f/")
            compopt -o nospace 2>/dev/null
        elif [[ -z $2 || $f == $2 ]]; then
            COMPREPLY+=("$f")
        fi
    done
}

_partita()
{
    local cur prev cmd opts words
    COMPREPLY=()
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    # "--opt=value": bash splits it at "=" (COMP_WORDBREAKS)
    if [[ $cur == = ]]; then
        cur=
    elif [[ $prev == = && $COMP_CWORD -ge 2 ]]; then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
    elif [[ $cur == --*=* ]]; then
        prev=${cur%%=*}
        cur=${cur#*=}
    fi

    if ((COMP_CWORD == 1)); then
        COMPREPLY=($(compgen -W "plan eval validate scale serve calibrate checkpoint sweep trials pipeline models devices clusters --help --version" -- "$cur"))
        return
    fi
    cmd=${COMP_WORDS[1]}

    # the value of an option
    case $prev in
    --cluster)
        COMPREPLY=($(compgen -W "$(_partita_names clusters)" -- "$cur"))
        _partita_files "$cur" '*.json'
        return ;;
    --dtype)
        if [[ $cmd == pipeline ]]; then COMPREPLY=($(compgen -W "fp32 fp16 int8" -- "$cur"))
        else COMPREPLY=($(compgen -W "bf16 fp16 fp8" -- "$cur")); fi
        return ;;
    --units) COMPREPLY=($(compgen -W "cpu gpu npu cpu,gpu cpu,npu gpu,npu cpu,gpu,npu" -- "$cur")); return ;;
    --engine) COMPREPLY=($(compgen -W "megatron deepspeed torchtitan fsdp any" -- "$cur")); return ;;
    --export) COMPREPLY=($(compgen -W "megatron deepspeed torchtitan torchrec" -- "$cur")); return ;;
    --objective)
        if [[ $cmd == pipeline ]]; then COMPREPLY=($(compgen -W "throughput latency" -- "$cur"))
        else COMPREPLY=($(compgen -W "step time-to-train goodput cost" -- "$cur")); fi
        return ;;
    --ft) COMPREPLY=($(compgen -W "job replica" -- "$cur")); return ;;
    --checkpoint-mode) COMPREPLY=($(compgen -W "sync async memory" -- "$cur")); return ;;
    --trace) _partita_files "$cur" '*.json'; return ;;
    --svg) _partita_files "$cur" '*.svg'; return ;;
    --report) _partita_files "$cur" '*.html'; return ;;
    --stat-eff) _partita_files "$cur" '*.csv'; return ;;
    --nccl) _partita_files "$cur" '*.txt'; return ;;
    --workload) return ;;
    --out) _partita_files "$cur" ''; return ;;
    --gpus | --global-batch | --seq-len | --top | --threads | --tokens | --critical-batch | \
        --target-loss | --max-gpus | --ilp-nodes | --moe-imbalance | --moe-capacity | --host-memory-GiB | \
        --trials | --cpu-machines | --batch | --devices | --replicas | \
        --strategy | --fix | --space | --mtbf-s | --checkpoint-s | --restart-s | --downtime-s | \
        --deadline-hours | --checkpoint-GBps | --spare-nodes | --failure-rate)
        return ;; # a number or a strategy: nothing to offer
    esac

    case $cmd in
    plan)
        opts="--cluster --gpus --global-batch --seq-len --doc-len --dtype --engine --top --space --fix
              --threads --json --explain --export --out --verify --objective --tokens
              --critical-batch --target-loss --trace --svg --report --moe-imbalance --moe-capacity
              --no-flash-attention --tp-comm-overlap --deadline-hours --checkpoint-GBps --checkpoint-mode --ft
              --spare-nodes --failure-rate --host-memory-GiB --cpu-machines --help" ;;
    eval)
        opts="--cluster --gpus --strategy --global-batch --seq-len --doc-len --dtype --engine
              --no-flash-attention --tp-comm-overlap --json --simulate --trace --svg --moe-imbalance
              --moe-capacity --help" ;;
    validate) opts="--json --plans --help" ;;
    calibrate) opts="--cluster --out --nccl --prior --workload --json --help" ;;
    scale) opts="--cluster --max-gpus --stat-eff --dtype --ilp-nodes --cpu-machines --json --svg --report --help" ;;
    checkpoint) opts="--mtbf-s --checkpoint-s --restart-s --downtime-s --json --help" ;;
    serve)
        opts="--cluster --gpus --isl --osl --rate --concurrency --offline --ttft-ms --tpot-ms
              --percentile --dtype --kv-dtype --engine --space --fix --max-num-tokens --top --json --export --out
              --report --help" ;;
    sweep) opts="--json --report --threads --help" ;;
    trials) opts="--cluster --gpus --trials --stat-eff --cpu-machines --no-spatial --dtype --json --help" ;;
    pipeline) opts="--cluster --batch --objective --dtype --devices --units --replicas --json --help" ;;
    models | devices | clusters) opts="--help" ;;
    *) return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return
    fi

    # the positional argument: a model, a graph or a CSV, named or a file
    words=0
    local i
    for ((i = 2; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
        --json | --explain | --verify | --simulate | --plans | --no-flash-attention | --tp-comm-overlap | --offline | --no-spatial | --help) ;;
        --*=* | =) ;;
        -*) # its value, given as "--opt value" or split at "=" as "--opt = value"
            if [[ ${COMP_WORDS[i + 1]} == = ]]; then ((i += 2)); else ((i++)); fi ;;
        *) ((words++)) ;;
        esac
    done
    ((words == 0)) || return
    case $cmd in
    plan | eval | serve)
        COMPREPLY=($(compgen -W "$(_partita_names models)" -- "$cur"))
        _partita_files "$cur" '*.json' ;;
    scale | trials | pipeline)
        COMPREPLY=($(compgen -W "$(_partita_names graphs)" -- "$cur"))
        _partita_files "$cur" '*.json' ;;
    validate | calibrate) _partita_files "$cur" '*.csv' ;;
    esac
}
complete -F _partita partita
