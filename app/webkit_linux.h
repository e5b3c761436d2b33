void clawboo_tune_webkit(void);
void clawboo_trim_malloc(void);
