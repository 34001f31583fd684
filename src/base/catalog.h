/*
 * catalog.h -- the built-in catalogs (data/devices.json, clusters.json, models.json,
 * gpus.json), compiled into the binary by tools/embed.c.  Each is a NUL-terminated JSON text; readers parse it on use.
 */
#ifndef PT_CATALOG_H
#define PT_CATALOG_H

extern const char pt_data_devices_json[];  /* data/devices.json  */
extern const char pt_data_clusters_json[]; /* data/clusters.json */
extern const char pt_data_models_json[];   /* data/models.json   */
extern const char pt_data_gpus_json[];     /* data/gpus.json     */

#endif
