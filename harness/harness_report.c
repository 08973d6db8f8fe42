/* harness_report.c - the harness's results (verdict table, failures, JSON) and the
 * golden hash files (read, write, verify). See harness.h. */
#include "harness.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ============================================================= golden */

void harness_golden_init(harness_golden *g)
{
    memset(g, 0, sizeof *g);
}

void harness_golden_free(harness_golden *g)
{
    free(g->e);
    memset(g, 0, sizeof *g);
}

const harness_golden_entry *harness_golden_get(const harness_golden *g, const char *op,
                                               const char *dtype, const char *case_name)
{
    for (size_t i = 0; i < g->n; ++i)
        if (strcmp(g->e[i].op, op) == 0 && strcmp(g->e[i].dtype, dtype) == 0 &&
            strcmp(g->e[i].case_name, case_name) == 0)
            return &g->e[i];
    return NULL;
}

void harness_golden_put(harness_golden *g, const char *op, const char *dtype, const char *case_name,
                        uint64_t hash)
{
    harness_golden_entry *e = (harness_golden_entry *)harness_golden_get(g, op, dtype, case_name);
    if (!e) {
        if (g->n == g->cap) {
            size_t cap = g->cap ? 2 * g->cap : 64;
            harness_golden_entry *p = realloc(g->e, cap * sizeof *p);
            if (!p)
                return;
            g->e = p;
            g->cap = cap;
        }
        e = &g->e[g->n++];
        snprintf(e->op, sizeof e->op, "%s", op);
        snprintf(e->dtype, sizeof e->dtype, "%s", dtype);
        snprintf(e->case_name, sizeof e->case_name, "%s", case_name);
    }
    e->hash = hash;
}

static int parse_golden_line(char *line, harness_golden *g)
{
    char op[32], dtype[32], cs[16], hex[32], extra[2];
    if (sscanf(line, "%31s %31s %15s %31s %1s", op, dtype, cs, hex, extra) != 4)
        return -1;
    char *end = NULL;
    uint64_t h = (uint64_t)strtoull(hex, &end, 16);
    if (strlen(hex) != 16 || *end != '\0')
        return -1;
    harness_golden_put(g, op, dtype, cs, h);
    return 0;
}

int harness_golden_read(const char *path, harness_golden *g, char *err, size_t err_size)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, err_size, "cannot open %s", path);
        return -1;
    }
    char line[256];
    int lineno = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        const char *p = line + strspn(line, " \t\r\n");
        if (*p == '\0' || *p == '#')
            continue;
        if (parse_golden_line(line, g) != 0) {
            snprintf(err, err_size, "%s:%d: expected 'op dtype case hash' (16 hex digits)", path,
                     lineno);
            rc = -1;
        }
    }
    fclose(f);
    return rc;
}

int harness_golden_write(const char *path, const harness_golden *g, char *err, size_t err_size)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, err_size, "cannot write %s", path);
        return -1;
    }
    fprintf(f, "# bicl golden hashes: 64-bit FNV-1a of the host reference's outputs on the\n"
               "# standard workload (fixed inputs, tests/harness.c), per op, dtype and token set,\n"
               "# tokens in logical (sample, token) order. Devices must reproduce them:\n"
               "#   bicl-check --verify tests/golden/golden.txt\n"
               "# Regenerate all (no device needed): bicl-check --golden tests/golden/golden.txt\n"
               "# Add or refresh one op only:        bicl-check --golden tests/golden/golden.txt "
               "--op NAME\n"
               "# op dtype case hash\n");
    for (size_t i = 0; i < g->n; ++i)
        fprintf(f, "%s %s %s %016" PRIx64 "\n", g->e[i].op, g->e[i].dtype, g->e[i].case_name,
                g->e[i].hash);
    if (fclose(f) != 0) {
        snprintf(err, err_size, "error writing %s", path);
        return -1;
    }
    return 0;
}

static const harness_op *op_named(const char *name, const char *dtype)
{
    for (size_t i = 0; i < harness_op_count(); ++i)
        if (strcmp(harness_op_at(i)->name, name) == 0 &&
            strcmp(harness_op_at(i)->dtype, dtype) == 0)
            return harness_op_at(i);
    return NULL;
}

void harness_golden_verify(const harness_golden *file, const harness_golden *device,
                           const char *file_name, harness_report *rep)
{
    for (size_t i = 0; i < device->n; ++i) {
        const harness_golden_entry *d = &device->e[i];
        const harness_golden_entry *f = harness_golden_get(file, d->op, d->dtype, d->case_name);
        char name[40];
        snprintf(name, sizeof name, "golden %s", d->case_name);
        harness_result *res = harness_report_add(rep, op_named(d->op, d->dtype), 'R', name);
        snprintf(res->op_name, sizeof res->op_name, "%s", d->op);
        snprintf(res->dtype, sizeof res->dtype, "%s", d->dtype);
        res->measured = true;
        res->pass = f && f->hash == d->hash;
        if (!f)
            snprintf(res->detail, sizeof res->detail,
                     "no entry in %s (an op newer than the file?); regenerate with: "
                     "bicl-check --golden %s --op %s",
                     file_name, file_name, d->op);
        else if (f->hash != d->hash)
            snprintf(res->detail, sizeof res->detail,
                     "hash %016" PRIx64 " on this device, %016" PRIx64 " in %s (if the numerics "
                     "changed on purpose: bicl-check --golden %s --op %s)",
                     d->hash, f->hash, file_name, file_name, d->op);
        else
            snprintf(res->detail, sizeof res->detail, "hash %016" PRIx64 " as in %s", d->hash,
                     file_name);
    }
}

/* ============================================================= the report */

void harness_report_init(harness_report *rep)
{
    memset(rep, 0, sizeof *rep);
}

void harness_report_free(harness_report *rep)
{
    free(rep->r);
    memset(rep, 0, sizeof *rep);
}

harness_result *harness_report_add(harness_report *rep, const harness_op *op, char relation,
                                   const char *case_name)
{
    if (rep->n == rep->cap) {
        size_t cap = rep->cap ? 2 * rep->cap : 256;
        harness_result *p = realloc(rep->r, cap * sizeof *p);
        if (!p) { /* a report that silently drops results would lie */
            fprintf(stderr, "harness: out of host memory for the report\n");
            abort();
        }
        rep->r = p;
        rep->cap = cap;
    }
    harness_result *res = &rep->r[rep->n++];
    memset(res, 0, sizeof *res);
    res->op = op;
    if (op) {
        snprintf(res->op_name, sizeof res->op_name, "%s", op->name);
        snprintf(res->dtype, sizeof res->dtype, "%s", op->dtype);
    }
    res->relation = relation;
    snprintf(res->case_name, sizeof res->case_name, "%s", case_name);
    return res;
}

bool harness_report_passed(const harness_report *rep)
{
    for (size_t i = 0; i < rep->n; ++i)
        if (!rep->r[i].pass)
            return false;
    return true;
}

const harness_result *harness_report_find(const harness_report *rep, const char *op_name,
                                          char relation, const char *case_prefix)
{
    for (size_t i = 0; i < rep->n; ++i) {
        const harness_result *r = &rep->r[i];
        if (r->relation == relation && strcmp(r->op_name, op_name) == 0 &&
            strncmp(r->case_name, case_prefix, strlen(case_prefix)) == 0)
            return r;
    }
    return NULL;
}

/* One line of the verdict table: the results of one op, dtype and relation. */
typedef struct verdict {
    const harness_result *first;
    size_t cases, failed, compared, mismatches;
    unsigned long long max_ulp;
    bool measured, not_applicable;
} verdict;

static bool same_line(const harness_result *a, const harness_result *b)
{
    return a->relation == b->relation && strcmp(a->op_name, b->op_name) == 0 &&
           strcmp(a->dtype, b->dtype) == 0;
}

static void print_verdict(FILE *f, const verdict *v)
{
    const harness_result *r = v->first;
    char ulp[32] = "-";
    if (r->relation == 'A' && v->measured)
        snprintf(ulp, sizeof ulp, "%llu/%u", v->max_ulp, r->op ? r->op->ulp_limit : 0u);
    const char *word = v->failed ? "FAIL" : v->measured ? "pass" : "n/a";
    if (!v->failed && v->not_applicable)
        word = "n/a (fp64)";
    fprintf(f, "%-12s %-11s %-3c %6zu %6zu %11zu %10zu %8s  %s\n", r->op_name, r->dtype,
            r->relation, v->cases, v->failed, v->compared, v->mismatches, ulp, word);
}

void harness_report_print_table(const harness_report *rep, FILE *f)
{
    fprintf(f, "%-12s %-11s %-3s %6s %6s %11s %10s %8s  %s\n", "op", "dtype", "rel", "cases",
            "failed", "elements", "mismatches", "ulp/lim", "verdict");
    bool *done = calloc(rep->n ? rep->n : 1, sizeof *done);
    if (!done)
        return;
    for (size_t i = 0; i < rep->n; ++i) {
        if (done[i])
            continue;
        verdict v = {&rep->r[i], 0, 0, 0, 0, 0, false, false};
        for (size_t k = i; k < rep->n; ++k) {
            const harness_result *r = &rep->r[k];
            if (done[k] || !same_line(r, v.first))
                continue;
            done[k] = true;
            v.cases++;
            v.failed += !r->pass;
            v.compared += r->compared;
            v.mismatches += r->mismatches;
            v.max_ulp = r->max_ulp > v.max_ulp ? r->max_ulp : v.max_ulp;
            v.measured |= r->measured;
            v.not_applicable |= r->not_applicable;
        }
        print_verdict(f, &v);
    }
    free(done);
}

void harness_report_print_failures(const harness_report *rep, FILE *f)
{
    for (size_t i = 0; i < rep->n; ++i) {
        const harness_result *r = &rep->r[i];
        if (!r->pass)
            fprintf(f, "FAIL %s %s %c [%s]: %s\n", r->op_name, r->dtype, r->relation, r->case_name,
                    r->detail);
    }
}

void harness_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; ++p) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", f);
        else if (*p == '\t')
            fputs("\\t", f);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

int harness_report_write_json(const harness_report *rep, const char *device,
                              const char *fingerprint, FILE *f)
{
    fputs("{\n  \"device\": ", f);
    harness_json_string(f, device);
    fputs(",\n  \"fingerprint\": ", f);
    harness_json_string(f, fingerprint);
    fprintf(f, ",\n  \"passed\": %s,\n  \"results\": [",
            harness_report_passed(rep) ? "true" : "false");
    for (size_t i = 0; i < rep->n; ++i) {
        const harness_result *r = &rep->r[i];
        char rel[2] = {r->relation, '\0'};
        fputs(i ? ",\n    {\"op\": " : "\n    {\"op\": ", f);
        harness_json_string(f, r->op_name);
        fputs(", \"dtype\": ", f);
        harness_json_string(f, r->dtype);
        fputs(", \"relation\": ", f);
        harness_json_string(f, rel);
        fputs(", \"case\": ", f);
        harness_json_string(f, r->case_name);
        fprintf(f,
                ", \"pass\": %s, \"not_applicable\": %s, \"detail\": ", r->pass ? "true" : "false",
                r->not_applicable ? "true" : "false");
        harness_json_string(f, r->detail);
        fputc('}', f);
    }
    fputs(rep->n ? "\n  ]\n}\n" : "]\n}\n", f);
    return ferror(f) ? -1 : 0;
}
