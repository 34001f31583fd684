/*
 * statef_csv.h -- statistical efficiency fitted to the user's measurements
 * (a CSV with columns batch and steps, or batch and epochs).
 */
#ifndef PT_STATEF_CSV_H
#define PT_STATEF_CSV_H

#include "goal/ttt.h"

/* Reads text (from file, for messages) and fits E(B) = e_min (1 + B/b_noise);
 * steps are turned into epochs with samples_per_epoch. */
pt_status pt_statef_read_csv(const char *text, const char *file, double samples_per_epoch, pt_statef *out,
                             pt_diag *d);

#endif
