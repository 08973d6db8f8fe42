/* options.h - layer 2: the fixed build options and the options struct
 * behind bicl_options_* (options.c). */
#ifndef BICL_SRC_OPTIONS_H
#define BICL_SRC_OPTIONS_H

#include "status.h"

#define BICL_FIXED_BUILD_OPTIONS "-cl-std=CL1.2 -cl-fp32-correctly-rounded-divide-sqrt"

struct bicl_options {
    char build_options[512];
    char cache_dir[BICL_PATH_MAX];
    int disk_cache;
    char profile[32];
    int act_tables;      /* BICL_ACT_TABLES_*: BICL_OPTION_ACT_TABLES */
    int rope_specialise; /* BICL_OPTION_ROPE_SPECIALISE */
    int rope_form;       /* BICL_ROPE_FORM_*: BICL_OPTION_ROPE_FORM */
};
void bicl_options_defaults(bicl_options *o);
#define BICL_ACT_TABLES_UNSET   (-1) /* not set: $BICL_ACT_TABLES, else auto */
#define BICL_ACT_TABLES_OFF     0
#define BICL_ACT_TABLES_AUTO    1 /* on, in full */
#define BICL_ACT_TABLES_FULL    2 /* on, every table in full */
#define BICL_ACT_TABLES_COMPACT 3 /* on, 16-bit unary tables compact (act_tables.c) */
/* "auto", "off", "full", "compact" -> AUTO, OFF, FULL, COMPACT; NULL or "" -> UNSET; anything
 * else -> -2. */
int bicl_act_tables_parse(const char *value);
#define BICL_ROPE_FORM_UNSET (-2) /* not set: $BICL_ROPE_FORM, else the profile's */
#define BICL_ROPE_FORM_AUTO  (-1) /* the profile's */
#define BICL_ROPE_FORM_UNITS 0
#define BICL_ROPE_FORM_ROWS  1
/* "auto", "units", "rows" -> AUTO, UNITS, ROWS; NULL or "" -> UNSET; anything else -> -3. */
int bicl_rope_form_parse(const char *value);

#endif
