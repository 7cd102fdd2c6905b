/* Error recording for cryodyn: status codes travel up through return values,
 * the message travels in a cryo_err record owned by the caller (the component,
 * or a local record before the component exists).
 *
 *   CRYO_CALL(expr)                         return the status of expr if it failed
 *   CRYO_CHECK(cond, err, CLASS, fmt, ...)  record "fmt" and return CLASS if !cond
 */
#ifndef CRYO_ERROR_H
#define CRYO_ERROR_H

#include "cryodyn_status.h"

#define CRYO_ERR_MSG_LEN 1024

typedef struct cryo_err {
  int status;                 /* CRYO_OK or the class of the last error */
  char msg[CRYO_ERR_MSG_LEN]; /* what went wrong, for the user */
  const char *file;           /* where in cryodyn it was detected */
  int line;
  const char *func;
} cryo_err;

/* Record an error in err (may be NULL) and return `status`. The message is
 * formatted like printf. */
int cryo_err_set(cryo_err *err, int status, const char *file, int line, const char *func,
                 const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Clear a record to CRYO_OK and an empty message. */
void cryo_err_clear(cryo_err *err);

#define CRYO_CALL(expr)                                                                            \
  do {                                                                                             \
    int cryo_call_status_ = (expr);                                                                \
    if (cryo_call_status_ != CRYO_OK) return cryo_call_status_;                                    \
  } while (0)

#define CRYO_CHECK(cond, err, status, ...)                                                         \
  do {                                                                                             \
    if (!(cond)) return cryo_err_set((err), (status), __FILE__, __LINE__, __func__, __VA_ARGS__);  \
  } while (0)

#define CRYO_ERROR(err, status, ...)                                                               \
  cryo_err_set((err), (status), __FILE__, __LINE__, __func__, __VA_ARGS__)

#endif
