/*
 * search_out.c -- `partita eval --json` and `partita plan --json` (SPEC 5):
 * the question that was asked around the plan objects of plan_out.c.
 * Not here: the human tables (plan_out.c, src/cli/cmd_plan.c).
 */
#include "emit/emit.h"
#include "plan/search.h"
#include "goal/ttt.h"
#include "sim/sim.h"

#include <stdlib.h>
#include <string.h>

pt_status pt_emit_json_finish(json_t *j, char **out, pt_diag *d)
{
    char *text = j ? pt_emit_json_text(j) : NULL;
    pt_emit_buf b;
    json_decref(j);
    memset(&b, 0, sizeof b);
    if (!text) b.oom = 1;
    else pt_emit_buf_printf(&b, "%s\n", text);
    free(text);
    return pt_emit_buf_finish(&b, out, d);
}

pt_status pt_emit_eval_json(const pt_model *m, const pt_cluster *c, const pt_job *job, const pt_strategy *st,
                            const pt_cost *cost, const pt_sim_result *sim, char **out, pt_diag *d)
{
    json_t *j = pt_emit_plan_json(st, cost);
    json_t *head = json_object();
    json_object_set_new(head, "model", json_string(m->name));
    /* parameters: all of them, and what one token uses (MoE: topk experts) */
    json_object_set_new(head, "params_total", json_integer(pt_model_params(m)));
    json_object_set_new(head, "params_active", json_integer(pt_model_active_params(m)));
    /* multi-token-prediction depths priced (outside the parameter counts) */
    json_object_set_new(head, "mtp_layers", json_integer(m->mtp_layers));
    json_object_set_new(head, "cluster", json_string(c->name));
    json_object_set_new(head, "device", json_string(c->dev.name));
    json_object_set_new(head, "devices", json_integer(c->devices));
    json_object_set_new(head, "seq_len", json_integer(job->seq_len));
    /* tokens per packed document (--doc-len), null: one per sequence */
    json_object_set_new(head, "doc_len", pt_job_doc_len(job) ? json_integer(pt_job_doc_len(job)) : json_null());
    json_object_set_new(head, "dtype", json_string(pt_dtype_name(job->dtype)));
    json_object_set_new(head, "flash_attention", json_boolean(job->flash_attention));
    pt_emit_comm_opts_json(head, job);
    json_object_set_new(head, "engine", json_string(pt_engine_name(job->engine)));
    pt_emit_device_json(head, &c->dev);
    json_object_update(head, j);
    json_decref(j);
    if (sim) {
        json_object_set_new(head, "simulated_step_time_s", json_real(sim->step_time_s));
        json_object_set_new(head, "simulated_bubble_s", json_real(sim->bubble_s));
        json_object_set_new(head, "simulated_peak_memory_GiB", json_real((double)sim->peak_bytes / PT_GiB));
    }
    return pt_emit_json_finish(head, out, d);
}

pt_status pt_emit_search_json(const pt_model *m, const pt_cluster *c, const pt_job *job,
                              const pt_search_result *r, double min_tokens, double bcrit,
                              const pt_plan_check *checks, int verify, char **out, pt_diag *d)
{
    json_t *j = json_object(), *plans = json_array();
    int ttt = min_tokens > 0;
    json_object_set_new(j, "model", json_string(m->name));
    json_object_set_new(j, "cluster", json_string(c->name));
    json_object_set_new(j, "devices", json_integer(c->devices));
    json_object_set_new(j, "seq_len", json_integer(job->seq_len));
    json_object_set_new(j, "dtype", json_string(pt_dtype_name(job->dtype)));
    pt_emit_comm_opts_json(j, job);
    /* what the search was bounded to (src/plan/engine_space.c): megatron,
     * deepspeed, torchtitan or any; each plan names its own */
    json_object_set_new(j, "engine", json_string(pt_engine_label(job->engine)));
    json_object_set_new(j, "device", json_string(c->dev.name));
    pt_emit_device_json(j, &c->dev);
    json_object_set_new(j, "candidates_evaluated", json_integer(r->evaluated));
    json_object_set_new(j, "candidates_priced", json_integer(r->priced));
    json_object_set_new(j, "candidates_pruned_by_memory", json_integer(r->pruned));
    json_object_set_new(j, "candidates_fitting", json_integer(r->fitting));
    json_object_set_new(j, "search_seconds", json_real(r->seconds));
    json_object_set_new(j, "objective", json_string(ttt ? "time-to-train" : "step"));
    if (ttt) {
        json_object_set_new(j, "min_tokens", json_real(min_tokens));
        json_object_set_new(j, "critical_batch_tokens", json_real(bcrit));
    }
    for (int i = 0; i < r->n; i++) {
        const pt_plan *p = &r->plans[i];
        json_t *pj = pt_emit_plan_json(&p->st, &p->cost);
        json_object_set_new(pj, "engine", json_string(pt_engine_label(pt_engine_of(m, job, &p->st))));
        if (ttt) {
            pt_goal_lm lm = {min_tokens, bcrit};
            pt_goal_ttt t;
            pt_goal_lm_time_to_train(&lm, p, job, &t);
            json_object_set_new(pj, "tokens_to_target", json_real(t.samples));
            json_object_set_new(pj, "steps_to_target", json_real(t.steps));
            json_object_set_new(pj, "time_to_train_s", json_real(t.time_s));
        }
        if (checks) {
            /* step_time_s and the rates derived from it are the simulator's
             * when it replayed the step (pt_plan_rerank); time_s and memory
             * are the analytic model's breakdown */
            const pt_plan_check *k = &checks[i];
            json_object_set_new(pj, "step_time_source", json_string(k->independent ? "simulated" : "analytic"));
            if (verify) {
                json_object_set_new(pj, "analytic_step_time_s", json_real(k->analytic_step_time_s));
                /* only what the simulator checked (pt_plan_sim_independent):
                 * without data parallelism, at pp=1 and for zb-v and
                 * dualpipe it computes what the analytic model does, and a
                 * "simulated" number equal to it would claim a check that
                 * was not made */
                if (k->simulated && k->independent) {
                    json_object_set_new(pj, "simulated_step_time_s", json_real(k->simulated_step_time_s));
                    json_object_set_new(pj, "simulated_bubble_s", json_real(k->simulated_bubble_s));
                    json_object_set_new(pj, "simulated_peak_memory_GiB",
                                        json_real((double)k->simulated_peak_bytes / PT_GiB));
                }
            }
        }
        json_array_append_new(plans, pj);
    }
    json_object_set_new(j, "plans", plans);
    return pt_emit_json_finish(j, out, d);
}
