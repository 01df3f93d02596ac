; The BASIC/KERNAL stand-in of the virtual C64 (acme syntax, 6510).
;
; Written for mcp-engines; it is not Commodore code and contains none. It provides what a program
; built with cc65, acme or 64tass needs to start from a BASIC "SYS" stub and run:
;   - the reset, IRQ, NMI and BRK entry points at the real KERNAL's addresses ($FCE2, $FF48,
;     $FE43, $EA31/$EA81, $FE47/$FEBC, $FE66) and the RAM vectors at $0314-$0333; the exits to
;     BASIC programs use ($A474 READY, $E37B warm start, the $A002 vector);
;   - the KERNAL routines' own addresses that programs call directly ($E518, $E536, $E544, $E566,
;     $E5B4, $EA24, $EA87, $FD15, $FD1A, $FD50, $FDA3, $FDDD, $FF5B), and the reset leaving the
;     CIAs, the VIC and $02A6 as the real KERNAL leaves them (programs and tests rely on that state);
;   - the whole KERNAL jump table $FF81-$FFF3, each entry with a defined behaviour: the screen
;     editor (CHROUT with PETSCII controls, colours, reverse, scrolling; PLOT, SCREEN), the keyboard
;     buffer at $0277 (GETIN, CHRIN line input), logical files on the keyboard (0) and screen (3),
;     the jiffy clock routines; no serial bus, tape or disk: those report "device not present";
;   - a BASIC stand-in: a small integer subset of CBM BASIC V2 (SYS, RUN, REM, END, POKE, PRINT,
;     IF/THEN, GOTO, LET, numeric variables, PEEK and integer expressions), typed lines tokenized
;     with all of V2's keywords, and BASIC's entry points that machine code calls (STROUT $AB1E,
;     LINPRT $BDCD, LINKPRG $A533, RUN/CLR $A659, NEWSTT $A7AE); anything else prints an error
;     saying the stand-in does not have it.
; System variables live at the real addresses, so programs that read them find what they expect.
;
; Build: node --import tsx engines/ultimate/virtual/kernal-standin-build.ts
; (assembles this file with acme and regenerates kernal-standin.ts).

!cpu 6510

; ---- system variables (real C64 addresses) -------------------------------------------------
SUBFLG  = $10
LINNUM  = $14           ; SYS address
INDEX   = $22           ; $22/$23 pointer for STROUT and LINKPRG
TXTTAB  = $2b           ; start of the BASIC program
VARTAB  = $2d
ARYTAB  = $2f
STREND  = $31
FRETOP  = $33           ; bottom of the string space
MEMSIZ  = $37           ; top of BASIC memory
CURLIN  = $39           ; line being executed; high byte $FF in direct mode
OLDTXT  = $3d
DATPTR  = $41
FACHO   = $62           ; $62-$64: LINPRT's number and digit flag
TXTPTR  = $7a
STATUS  = $90
XSAV    = $97
LDTND   = $98           ; number of open logical files
DFLTN   = $99           ; input device
DFLTO   = $9a           ; output device
MSGFLG  = $9d
TIME    = $a0           ; jiffy clock $a0-$a2
TMP1    = $ac           ; $ac/$ad
TMP2    = $ae           ; $ae/$af
FNLEN   = $b7
LA      = $b8
SA      = $b9
FA      = $ba
FNADR   = $bb
TAPE1   = $b2           ; cassette buffer pointer
MEMUSS  = $c3
NDX     = $c6           ; keys in the keyboard buffer
RVS     = $c7
INDX    = $c8           ; length of the line CHRIN hands out
LINPOS  = $ca           ; next position in that line
CRSW    = $d0           ; non-zero while CHRIN hands out a line
PNT     = $d1           ; screen line pointer
PNTR    = $d3           ; cursor column
QTSW    = $d4
LNMX    = $d5
TBLX    = $d6           ; cursor row
DATA    = $d7
LDTB1   = $d9           ; $D9-$F1: screen line table (bit 7: the row starts a logical line)
USER    = $f3           ; colour line pointer
BUF     = $0200         ; input line
LAT     = $0259
FAT     = $0263
SAT     = $026d
KEYD    = $0277         ; keyboard buffer
MEMSTR  = $0281
MEMTOP  = $0283
TIMOUT  = $0285
COLOR   = $0286
HIBASE  = $0288
XMAX    = $0289
MODE    = $0291
PALNTS  = $02a6         ; 1: PAL VIC, 0: NTSC
SAREG   = $030c
SXREG   = $030d
SYREG   = $030e
SPREG   = $030f
CINV    = $0314
CBINV   = $0316
NMINV   = $0318
IOPEN   = $031a
ICLOSE  = $031c
ICHKIN  = $031e
ICKOUT  = $0320
ICLRCH  = $0322
IBASIN  = $0324
IBSOUT  = $0326
ISTOP   = $0328
IGETIN  = $032a
ICLALL  = $032c
ILOAD   = $0330
ISAVE   = $0332

CHROUT  = $ffd2
CHRIN   = $ffcf
CLRCHN  = $ffcc

MAXLINE = 80

; =============================================================================================
; BASIC stand-in, $A000-$BFFF
; =============================================================================================
* = $a000
        !word basic_cold, basic_warm
        !text "MCP-ENGINES STAND-IN, NOT CBM BASIC", 0

basic_cold:
        lda #$00                ; an empty program at $0801
        sta $0800
        sta $0801
        sta $0802
        lda #$01
        sta TXTTAB
        lda #$08
        sta TXTTAB+1
        lda #$03
        sta VARTAB
        sta ARYTAB
        sta STREND
        lda #$08
        sta VARTAB+1
        sta ARYTAB+1
        sta STREND+1
        lda #$00
        sta MEMSIZ
        lda #$a0
        sta MEMSIZ+1
        ldx #0
-       lda banner,x
        beq basic_warm
        jsr CHROUT
        inx
        bne -

basic_warm:
        ldx #$fa
        txs
        cld
        jsr CLRCHN
ready:                          ; print READY. and wait for a line (also $A474)
        ldx #$fa
        txs
        lda #<ready_text
        ldy #>ready_text
        jsr strout

; Direct mode: a line typed into the keyboard buffer is tokenized in BUF and executed from there,
; statement by statement, as a program line would be.
main_loop:
        lda #$80                ; direct mode
        sta MSGFLG
        lda #$ff                ; CURLIN high byte $FF = direct mode, as in CBM BASIC
        sta CURLIN+1
        jsr basic_read_line     ; X = length
        lda #0
        sta BUF,x
        jsr tokenize
        lda #<(BUF-1)
        sta TXTPTR
        lda #>(BUF-1)
        sta TXTPTR+1
        jsr next_char
        beq main_loop           ; an empty line
        jsr exec_here
        jmp newstt

; An error: the message at A/Y, " IN <line>" when a program runs, then READY.
basic_error:
        jsr strout
        lda CURLIN+1
        cmp #$ff
        beq +
        lda #<in_text
        ldy #>in_text
        jsr strout
        lda CURLIN+1
        ldx CURLIN
        jsr linprt
+       lda #$0d
        jsr CHROUT
        jmp ready

syntax_error:
        lda #<syntax_text
        ldy #>syntax_text
        jmp basic_error

cannot_run:
        lda #<only_run_sys_text
        ldy #>only_run_sys_text
        jmp basic_error

skip_spaces:                    ; Y forward over spaces at (TXTPTR),y; A = the character there
-       lda (TXTPTR),y
        cmp #' '
        bne +
        iny
        bne -
+       rts

advance_y:                      ; TXTPTR += Y
        tya
        clc
        adc TXTPTR
        sta TXTPTR
        bcc +
        inc TXTPTR+1
+       rts

next_char:                      ; TXTPTR + 1, spaces skipped; A = the character there, Z=1 on 0
        inc TXTPTR
        bne +
        inc TXTPTR+1
+       ldy #0
        lda (TXTPTR),y
        cmp #' '
        beq next_char
        cmp #0
        rts

; decimal digits at (TXTPTR),y -> LINNUM; C=1 when there is no digit
parse_number:
        lda #0
        sta LINNUM
        sta LINNUM+1
        lda (TXTPTR),y
        jsr is_digit
        bcc pn_digit
        rts
pn_digit:
        and #$0f
        pha
        asl LINNUM              ; LINNUM * 10 = LINNUM * 2 + LINNUM * 8
        rol LINNUM+1
        lda LINNUM
        sta TMP1
        lda LINNUM+1
        sta TMP1+1
        asl LINNUM
        rol LINNUM+1
        asl LINNUM
        rol LINNUM+1
        clc
        lda LINNUM
        adc TMP1
        sta LINNUM
        lda LINNUM+1
        adc TMP1+1
        sta LINNUM+1
        pla
        clc
        adc LINNUM
        sta LINNUM
        bcc +
        inc LINNUM+1
+       iny
        lda (TXTPTR),y
        jsr is_digit
        bcc pn_digit
        clc
        rts

; C=0 when A is a decimal digit
is_digit:
        cmp #'0'
        bcc +
        cmp #'9'+1
        rts
+       sec
        rts

; BASIC's own line input (separate from CHRIN so the host can tell "READY and idle" apart
; from a program waiting for input): keys from the buffer, echoed; X = length at RETURN.
basic_read_line:
        ldx #0
brl_wait:
        lda NDX
        beq brl_wait
brl_wait_end:
        stx XSAV
        jsr pop_key
        ldx XSAV
        cmp #$0d
        beq brl_done
        cmp #$14                ; DEL
        bne +
        cpx #0
        beq brl_wait
        dex
        jsr CHROUT
        jmp brl_wait
+       cpx #MAXLINE
        bcs brl_wait
        sta BUF,x
        inx
        jsr CHROUT
        jmp brl_wait
brl_done:
        jsr CHROUT
        rts

; Tokenize the line in BUF in place: the keywords the stand-in knows become CBM BASIC V2's token
; bytes (so a typed line runs through the same statement code as a program line); text in quotes
; and after REM stays as typed.
TK_READ = $71                   ; read index
TK_WRITE = $0b                  ; write index (never ahead of the read index)
TK_QUOTE = $0f                  ; bit 7: inside quotes; bit 6: after REM
TK_TOKEN = $72
tokenize:
        ldx #0
        stx TK_WRITE
        stx TK_QUOTE
tk_loop:
        lda BUF,x
        beq tk_end
        cmp #'"'
        bne +
        lda TK_QUOTE
        eor #$80
        sta TK_QUOTE
        lda #'"'
        bne tk_copy
+       bit TK_QUOTE
        bmi tk_copy             ; in quotes
        bvs tk_copy             ; after REM
        stx TK_READ
        lda #<keywords
        sta INDEX
        lda #>keywords
        sta INDEX+1
tk_try:                         ; each keyword of the table against BUF at TK_READ
        ldy #0
        lda (INDEX),y
        beq tk_none             ; end of the table
        sta TK_TOKEN
        ldx TK_READ
tk_cmp:
        iny
        lda (INDEX),y
        beq tk_match
        cmp BUF,x
        bne tk_skip
        inx
        bne tk_cmp
tk_skip:                        ; past this entry's 0 to the next entry
-       lda (INDEX),y
        beq +
        iny
        bne -
+       iny
        tya
        clc
        adc INDEX
        sta INDEX
        bcc tk_try
        inc INDEX+1
        bne tk_try
tk_match:                       ; X = the read index after the keyword
        lda TK_TOKEN
        cmp #TK_REM
        bne +
        lda #$40
        sta TK_QUOTE
        lda TK_TOKEN
+       ldy TK_WRITE
        sta BUF,y
        inc TK_WRITE
        jmp tk_loop
tk_none:
        ldx TK_READ
        lda BUF,x
tk_copy:
        ldy TK_WRITE
        sta BUF,y
        inc TK_WRITE
        inx
        jmp tk_loop
tk_end:                         ; the line's 0, then a 0 link: nothing follows in direct mode
        ldy TK_WRITE
        sta BUF,y
        sta BUF+1,y
        sta BUF+2,y
        rts

TK_END = $80
TK_LET = $88
TK_GOTO = $89
TK_RUN = $8a
TK_IF = $8b
TK_POKE = $97
TK_PRINT = $99
TK_THEN = $a7
TK_REM = $8f
TK_SYS = $9e
TK_NOT = $a8
TK_PLUS = $aa
TK_MINUS = $ab
TK_MUL = $ac
TK_AND = $af
TK_OR = $b0
TK_GT = $b1                     ; then = and <
TK_SGN = $b4                    ; the first function token
TK_PEEK = $c2
keywords:                       ; CBM BASIC V2's keywords in token order ($80 END ... $CB GO), so that
                                ; the first match wins as in CBM BASIC (INPUT# before INPUT); each
                                ; entry: token, text, 0; a 0 token ends the table
        !byte $80
        !text "END", 0
        !byte $81
        !text "FOR", 0
        !byte $82
        !text "NEXT", 0
        !byte $83
        !text "DATA", 0
        !byte $84
        !text "INPUT#", 0
        !byte $85
        !text "INPUT", 0
        !byte $86
        !text "DIM", 0
        !byte $87
        !text "READ", 0
        !byte $88
        !text "LET", 0
        !byte $89
        !text "GOTO", 0
        !byte $8a
        !text "RUN", 0
        !byte $8b
        !text "IF", 0
        !byte $8c
        !text "RESTORE", 0
        !byte $8d
        !text "GOSUB", 0
        !byte $8e
        !text "RETURN", 0
        !byte $8f
        !text "REM", 0
        !byte $90
        !text "STOP", 0
        !byte $91
        !text "ON", 0
        !byte $92
        !text "WAIT", 0
        !byte $93
        !text "LOAD", 0
        !byte $94
        !text "SAVE", 0
        !byte $95
        !text "VERIFY", 0
        !byte $96
        !text "DEF", 0
        !byte $97
        !text "POKE", 0
        !byte $98
        !text "PRINT#", 0
        !byte $99
        !text "PRINT", 0
        !byte $9a
        !text "CONT", 0
        !byte $9b
        !text "LIST", 0
        !byte $9c
        !text "CLR", 0
        !byte $9d
        !text "CMD", 0
        !byte $9e
        !text "SYS", 0
        !byte $9f
        !text "OPEN", 0
        !byte $a0
        !text "CLOSE", 0
        !byte $a1
        !text "GET", 0
        !byte $a2
        !text "NEW", 0
        !byte $a3
        !text "TAB(", 0
        !byte $a4
        !text "TO", 0
        !byte $a5
        !text "FN", 0
        !byte $a6
        !text "SPC(", 0
        !byte $a7
        !text "THEN", 0
        !byte $a8
        !text "NOT", 0
        !byte $a9
        !text "STEP", 0
        !byte $aa
        !text "+", 0
        !byte $ab
        !text "-", 0
        !byte $ac
        !text "*", 0
        !byte $ad
        !text "/", 0
        !byte $ae
        !text "^", 0
        !byte $af
        !text "AND", 0
        !byte $b0
        !text "OR", 0
        !byte $b1
        !text ">", 0
        !byte $b2
        !text "=", 0
        !byte $b3
        !text "<", 0
        !byte $b4
        !text "SGN", 0
        !byte $b5
        !text "INT", 0
        !byte $b6
        !text "ABS", 0
        !byte $b7
        !text "USR", 0
        !byte $b8
        !text "FRE", 0
        !byte $b9
        !text "POS", 0
        !byte $ba
        !text "SQR", 0
        !byte $bb
        !text "RND", 0
        !byte $bc
        !text "LOG", 0
        !byte $bd
        !text "EXP", 0
        !byte $be
        !text "COS", 0
        !byte $bf
        !text "SIN", 0
        !byte $c0
        !text "TAN", 0
        !byte $c1
        !text "ATN", 0
        !byte $c2
        !text "PEEK", 0
        !byte $c3
        !text "LEN", 0
        !byte $c4
        !text "STR$", 0
        !byte $c5
        !text "VAL", 0
        !byte $c6
        !text "ASC", 0
        !byte $c7
        !text "CHR$", 0
        !byte $c8
        !text "LEFT$", 0
        !byte $c9
        !text "RIGHT$", 0
        !byte $ca
        !text "MID$", 0
        !byte $cb
        !text "GO", 0
        !byte 0

banner:
        !byte $0d
        !text "  MCP-ENGINES VIRTUAL C64 - NO CBM ROMS", $0d
        !text " STAND-IN BASIC: A SMALL INTEGER SUBSET", $0d, 0
ready_text:
        !byte $0d
        !text "READY.", $0d, 0
only_run_sys_text:
        !byte $0d
        !text "?NOT IN THE STAND-IN BASIC", 0
undefd_text:
        !byte $0d
        !text "?UNDEF'D STATEMENT  ERROR", 0
syntax_text:
        !byte $0d
        !text "?SYNTAX  ERROR", 0
in_text:
        !text " IN ", 0

* = $a474                       ; BASIC's "print READY" entry, which programs jump to when done
        jmp ready

* = $a533                       ; LINKPRG: rebuild the line links of the program at TXTTAB
linkprg:
        lda TXTTAB
        sta INDEX
        lda TXTTAB+1
        sta INDEX+1
lp_line:
        ldy #1
        lda (INDEX),y           ; a link with high byte 0 ends the program
        beq lp_done
        ldy #4                  ; the line's text starts after link and line number
-       lda (INDEX),y
        beq +
        iny
        bne -
+       iny                     ; the next line starts after the 0 that ends this one
        tya
        clc
        adc INDEX
        pha
        lda INDEX+1
        adc #0
        ldy #1
        sta (INDEX),y
        tax
        pla
        dey
        sta (INDEX),y
        sta INDEX
        stx INDEX+1
        jmp lp_line
lp_done:
        rts

* = $a659                       ; TXTPTR to the start of the program, then CLR (what RUN does)
run_reset:
        sec
        lda TXTTAB
        sbc #1
        sta TXTPTR
        lda TXTTAB+1
        sbc #0
        sta TXTPTR+1
clr:                            ; CLR: no variables, arrays or strings; files closed; stack reset
        jsr $ffe7               ; CLALL
        lda VARTAB
        ldy VARTAB+1
        sta ARYTAB
        sty ARYTAB+1
        sta STREND
        sty STREND+1
        lda MEMSIZ
        ldy MEMSIZ+1
        sta FRETOP
        sty FRETOP+1
        sec                     ; DATA reads from the start of the program
        lda TXTTAB
        sbc #1
        sta DATPTR
        lda TXTTAB+1
        sbc #0
        sta DATPTR+1
        pla                     ; an empty stack, keeping the caller's return address
        tay
        pla
        ldx #$fa
        txs
        pha
        tya
        pha
        lda #0
        sta OLDTXT+1
        sta SUBFLG
        rts

; RUN: from the first line, with a cleared program state.
run_program:
        lda #$00                ; program mode
        sta MSGFLG
        jsr run_reset
        jmp newstt

* = $a7ae                       ; NEWSTT: the statement after TXTPTR (at the ':' or the 0 that
newstt:                         ; ended the last one); at a line's end the next line, if any
        ldy #0
        lda (TXTPTR),y
        cmp #' '
        bne +
        jsr next_char
+       cmp #':'
        beq ns_exec
        cmp #0
        beq +
        jmp syntax_error        ; something left over after a statement
+       ldy #2
        lda (TXTPTR),y          ; the next line's link: high byte 0 ends the program
        beq ns_ready
        iny
        lda (TXTPTR),y
        sta CURLIN
        iny
        lda (TXTPTR),y
        sta CURLIN+1
        jsr advance_y           ; TXTPTR on the line number's high byte
ns_exec:
        jsr exec_statement
        jmp newstt
ns_ready:
        jmp ready

; one statement: TXTPTR before it on entry; after it (after its spaces) on return
exec_statement:
        jsr next_char
exec_here:
        beq exec_done           ; empty statement
        cmp #':'
        beq exec_done
        cmp #TK_SYS
        beq st_sys
        cmp #TK_REM
        beq st_rem
        cmp #TK_END
        beq st_end
        cmp #TK_RUN
        beq st_run
        cmp #TK_POKE
        beq st_poke_
        cmp #TK_PRINT
        beq st_print_
        cmp #TK_IF
        beq st_if_
        cmp #TK_GOTO
        beq st_goto_
        cmp #TK_LET
        beq st_let_
        jsr is_letter
        bcs +
        jmp st_assign
+       cmp #$80
        bcc +
        jmp cannot_run          ; a statement of CBM BASIC that the stand-in does not have
+       jmp syntax_error
exec_done:
        rts
st_poke_:
        jmp st_poke
st_print_:
        jmp st_print
st_if_: jmp st_if
st_goto_:
        jmp st_goto
st_let_:
        jsr adv
        jmp st_assign

st_end: jmp ready
st_run: jmp run_program

st_rem: ldy #0                  ; the rest of the line
-       lda (TXTPTR),y
        beq +
        iny
        bne -
+       jmp advance_y

; SYS address (an expression): A/X/Y/P from $030C-$030F in and out, as BASIC's SYS does.
st_sys: jsr adv
        jsr eval
        lda #>(sys_return-1)
        pha
        lda #<(sys_return-1)
        pha
        lda SPREG
        pha
        lda SAREG
        ldx SXREG
        ldy SYREG
        plp
        jmp (LINNUM)
sys_return:
        php
        sta SAREG
        stx SXREG
        sty SYREG
        pla
        sta SPREG
        cld
        rts

* = $ab1e                       ; STROUT: print the 0-terminated string at A (low) / Y (high)
strout:
        sta INDEX
        sty INDEX+1
        ldy #0
-       lda (INDEX),y
        beq +
        jsr CHROUT
        iny
        bne -
        inc INDEX+1
        bne -
+       rts

; ---- expressions: 16-bit integers (CBM BASIC computes in floating point; the stand-in's uses —
; addresses, PEEK, sums and products of them, comparisons giving -1/0, AND/OR/NOT bit masks —
; give the same results in 16 bits). Precedence as in CBM BASIC: unary -, NOT; * ; + - ;
; = < > <> <= >= ; AND ; OR. The value ends in VAL (LINNUM, where SYS takes its address);
; TXTPTR is left on the first character after the expression.
VAL = LINNUM
LEFT = $26                      ; $26/$27 the left operand
MULT = $28                      ; $28/$29 the multiplier
RELOP = $4d                     ; the comparison asked for: bit 2 <, bit 1 =, bit 0 >

got:                            ; A = the character at TXTPTR, spaces skipped
        ldy #0
-       lda (TXTPTR),y
        cmp #' '
        bne +
        inc TXTPTR
        bne -
        inc TXTPTR+1
        bne -
+       rts

adv:                            ; TXTPTR + 1, then got
        inc TXTPTR
        bne got
        inc TXTPTR+1
        jmp got

!macro push_val {
        lda VAL+1
        pha
        lda VAL
        pha
}
!macro pop_left {
        pla
        sta LEFT
        pla
        sta LEFT+1
}

eval:                           ; OR
        jsr eval_and
-       jsr got
        cmp #TK_OR
        bne +
        jsr adv
        +push_val
        jsr eval_and
        +pop_left
        lda VAL
        ora LEFT
        sta VAL
        lda VAL+1
        ora LEFT+1
        sta VAL+1
        jmp -
+       rts

eval_and:
        jsr eval_rel
-       jsr got
        cmp #TK_AND
        bne +
        jsr adv
        +push_val
        jsr eval_rel
        +pop_left
        lda VAL
        and LEFT
        sta VAL
        lda VAL+1
        and LEFT+1
        sta VAL+1
        jmp -
+       rts

eval_rel:
        jsr eval_add
        lda #0
        sta RELOP
-       jsr got                 ; one, two or three of > = < in a row
        sec
        sbc #TK_GT
        cmp #3
        bcs +
        tax
        lda relop_bits,x
        ora RELOP
        sta RELOP
        jsr adv
        jmp -
+       lda RELOP
        bne +
        rts
+       pha
        +push_val
        jsr eval_add
        +pop_left
        pla
        sta RELOP
        lda LEFT                ; LEFT - VAL, signed: which of <, =, > holds
        cmp VAL
        bne +
        lda LEFT+1
        cmp VAL+1
        bne +
        lda #2                  ; equal
        bne rel_set
+       lda LEFT
        cmp VAL
        lda LEFT+1
        sbc VAL+1
        bvc +
        eor #$80
+       bmi +
        lda #1                  ; greater
        bne rel_set
+       lda #4                  ; less
rel_set:
        and RELOP
        beq +
        lda #$ff                ; true: -1
+       sta VAL
        sta VAL+1
        rts
relop_bits:
        !byte 1, 2, 4           ; > = <

eval_add:
        jsr eval_mul
-       jsr got
        cmp #TK_PLUS
        beq +
        cmp #TK_MINUS
        beq ++
        rts
+       jsr adv
        +push_val
        jsr eval_mul
        +pop_left
        clc
        lda LEFT
        adc VAL
        sta VAL
        lda LEFT+1
        adc VAL+1
        sta VAL+1
        jmp -
++      jsr adv
        +push_val
        jsr eval_mul
        +pop_left
        sec
        lda LEFT
        sbc VAL
        sta VAL
        lda LEFT+1
        sbc VAL+1
        sta VAL+1
        jmp -

eval_mul:
        jsr eval_unary
-       jsr got
        cmp #TK_MUL
        beq +
        rts
+       jsr adv
        +push_val
        jsr eval_unary
        +pop_left
        lda VAL                 ; VAL = LEFT * VAL, the low 16 bits
        sta MULT
        lda VAL+1
        sta MULT+1
        lda #0
        sta VAL
        sta VAL+1
        ldx #16
--      asl VAL
        rol VAL+1
        asl MULT
        rol MULT+1
        bcc +
        clc
        lda VAL
        adc LEFT
        sta VAL
        lda VAL+1
        adc LEFT+1
        sta VAL+1
+       dex
        bne --
        jmp -

eval_unary:
        jsr got
        cmp #TK_MINUS
        bne +
        jsr adv
        jsr eval_unary
        sec                     ; VAL = 0 - VAL
        lda #0
        sbc VAL
        sta VAL
        lda #0
        sbc VAL+1
        sta VAL+1
        rts
+       cmp #TK_NOT
        bne eval_primary
        jsr adv
        jsr eval_unary
        lda VAL                 ; NOT: every bit inverted (-VAL-1)
        eor #$ff
        sta VAL
        lda VAL+1
        eor #$ff
        sta VAL+1
        rts

eval_primary:
        cmp #'('
        bne +
        jsr adv
        jsr eval
        jmp close_paren
+       cmp #TK_PEEK
        bne +
        jsr adv
        cmp #'('
        bne ep_error
        jsr adv
        jsr eval
        jsr close_paren
        ldy #0                  ; the byte as the CPU sees it there, banking and I/O included
        lda (VAL),y
        sta VAL
        sty VAL+1
        rts
+       jsr is_digit
        bcs +
        ldy #0
        jsr parse_number
        jsr advance_y
        jmp got
+       jsr is_letter
        bcs +
        jmp eval_var
+       cmp #TK_SGN             ; a function of CBM BASIC that the stand-in does not have
        bcc ep_error
        jmp cannot_run
ep_error:
        jmp syntax_error

close_paren:                    ; a ")" must follow
        jsr got
        cmp #')'
        bne ep_error
        jmp adv

; ---- the statements beyond RUN/SYS/REM/END: POKE, PRINT, IF/THEN, GOTO, LET -----------------
; Numeric variables only, kept as CBM BASIC keeps simple variables — 7 bytes from VARTAB up (two
; name bytes, the value, padding), ARYTAB/STREND moved up for each new one — but holding the
; value as a 16-bit integer, not a 5-byte float.
VARPTR = $47                    ; $47/$48 the variable found or made
VARNAM = $45                    ; $45/$46 its name

is_letter:                      ; C=0 when A is A-Z
        cmp #'A'
        bcc +
        cmp #'Z'+1
        rts
+       sec
        rts

; the variable named at TXTPTR: VARPTR at its record, made if new; TXTPTR after the name
find_var:
        jsr got
        jsr is_letter
        bcc +
        jmp syntax_error
+       sta VARNAM
        lda #0
        sta VARNAM+1
        jsr adv                 ; a second letter or digit belongs to the name, more are ignored
        jsr is_letter
        bcc +
        jsr is_digit
        bcs fv_search
+       sta VARNAM+1
-       jsr adv
        jsr is_letter
        bcc -
        jsr is_digit
        bcc -
fv_search:
        lda VARTAB
        sta VARPTR
        lda VARTAB+1
        sta VARPTR+1
-       lda VARPTR              ; up to ARYTAB
        cmp ARYTAB
        lda VARPTR+1
        sbc ARYTAB+1
        bcs fv_new
        ldy #0
        lda (VARPTR),y
        cmp VARNAM
        bne +
        iny
        lda (VARPTR),y
        cmp VARNAM+1
        bne +
        rts
+       clc
        lda VARPTR
        adc #7
        sta VARPTR
        bcc -
        inc VARPTR+1
        bne -
fv_new:                         ; a new record at ARYTAB; the arrays (none here) move up
        ldy #0
        lda VARNAM
        sta (VARPTR),y
        iny
        lda VARNAM+1
        sta (VARPTR),y
        lda #0
-       iny
        sta (VARPTR),y
        cpy #6
        bne -
        clc
        lda ARYTAB
        adc #7
        sta ARYTAB
        sta STREND
        lda ARYTAB+1
        adc #0
        sta ARYTAB+1
        sta STREND+1
        rts

; a variable in an expression (eval_primary with a letter)
eval_var:
        jsr find_var
        ldy #2
        lda (VARPTR),y
        sta VAL
        iny
        lda (VARPTR),y
        sta VAL+1
        jmp got

; name = expression
st_assign:
        jsr find_var
        lda VARPTR+1
        pha
        lda VARPTR
        pha
        jsr got
        cmp #TK_GT+1            ; =
        beq +
        jmp syntax_error
+       jsr adv
        jsr eval
        pla
        sta VARPTR
        pla
        sta VARPTR+1
        ldy #2
        lda VAL
        sta (VARPTR),y
        iny
        lda VAL+1
        sta (VARPTR),y
        rts

; POKE address, value: through the CPU's memory map, I/O included
st_poke:
        jsr adv
        jsr eval
        +push_val
        jsr got
        cmp #','
        beq +
        jmp syntax_error
+       jsr adv
        jsr eval
        +pop_left
        lda VAL
        ldy #0
        sta (LEFT),y
        rts

; GOTO line: TXTPTR before that line, so NEWSTT runs it next
st_goto:
        jsr adv
goto_here:
        ldy #0
        jsr parse_number
        bcc +
        jmp syntax_error
+       jsr advance_y
        lda TXTTAB
        sta INDEX
        lda TXTTAB+1
        sta INDEX+1
-       ldy #1
        lda (INDEX),y           ; the end of the program: no such line
        beq goto_undefd
        ldy #2
        lda (INDEX),y
        cmp LINNUM
        bne +
        iny
        lda (INDEX),y
        cmp LINNUM+1
        beq ++
+       ldy #0                  ; the next line
        lda (INDEX),y
        tax
        iny
        lda (INDEX),y
        sta INDEX+1
        stx INDEX
        jmp -
++      sec
        lda INDEX
        sbc #1
        sta TXTPTR
        lda INDEX+1
        sbc #0
        sta TXTPTR+1
        rts
goto_undefd:
        lda #<undefd_text
        ldy #>undefd_text
        jmp basic_error

; IF expression THEN line / statement (GOTO line also): a false condition skips the line's rest
st_if:
        jsr adv
        jsr eval
        jsr got
        cmp #TK_GOTO
        beq +
        cmp #TK_THEN
        beq +
        jmp syntax_error
+       lda VAL
        ora VAL+1
        bne +
        jmp st_rem
+       jsr adv
        jsr is_digit
        bcc goto_here
        jmp exec_here

; PRINT: expressions (a sign or space, the digits, cursor right), "text", ';' joins, ','
; goes to the next 10-column zone; a new line unless the statement ends in ';' or ','
st_print:
        jsr adv
pr_item:
        cmp #0
        beq pr_newline
        cmp #':'
        beq pr_newline
        cmp #';'
        beq pr_join
        cmp #','
        beq pr_zone
        cmp #'"'
        beq pr_text
        jsr eval
        lda VAL+1
        bpl +
        lda #'-'
        jsr CHROUT
        sec
        lda #0
        sbc VAL
        tax
        lda #0
        sbc VAL+1
        jmp ++
+       lda #' '
        jsr CHROUT
        ldx VAL
        lda VAL+1
++      jsr linprt
        lda #$1d                ; cursor right
        jsr CHROUT
        jsr got
        jmp pr_item
pr_text:
-       jsr adv_raw
        beq pr_newline          ; the line ends inside the quotes
        cmp #'"'
        beq +
        jsr CHROUT
        jmp -
+       jsr adv
        jmp pr_item
pr_zone:
--      lda #$1d
        jsr CHROUT
        lda PNTR
        sec
-       sbc #10
        bcs -
        cmp #$f6                ; PNTR a multiple of 10
        bne --
pr_join:
        jsr adv
        cmp #0
        beq +
        cmp #':'
        bne pr_item
+       rts
pr_newline:
        lda #$0d
        jmp CHROUT

adv_raw:                        ; TXTPTR + 1; A = the character there, spaces kept; Z=1 on 0
        inc TXTPTR
        bne +
        inc TXTPTR+1
+       ldy #0
        lda (TXTPTR),y
        rts

* = $bdcd                       ; LINPRT: print A (high) / X (low) as an unsigned decimal number
linprt:
        sta FACHO
        stx FACHO+1
        lda #0
        sta FACHO+2             ; non-zero once a digit is printed: no leading zeros
        ldx #0
lnp_power:
        ldy #'0'
-       sec                     ; count how often the power of ten fits
        lda FACHO+1
        sbc pow10_lo,x
        pha
        lda FACHO
        sbc pow10_hi,x
        bcc +
        sta FACHO
        pla
        sta FACHO+1
        iny
        bne -
+       pla
        cpy #'0'
        bne +
        lda FACHO+2
        beq lnp_next
+       sty FACHO+2
        tya
        jsr CHROUT
lnp_next:
        inx
        cpx #4
        bne lnp_power
        lda FACHO+1
        ora #'0'
        jmp CHROUT
pow10_lo:
        !byte <10000, <1000, <100, <10
pow10_hi:
        !byte >10000, >1000, >100, >10

; =============================================================================================
; KERNAL stand-in, $E000-$FFFF
; =============================================================================================
* = $e000
        !text "MCP-ENGINES VIRTUAL C64 KERNAL STAND-IN, NOT CBM CODE", 0

; ---- entry points at the real KERNAL's addresses -------------------------------------------

* = $e37b                       ; BASIC warm start, another exit programs use
        jmp ($a002)

* = $e518                       ; the screen editor's part of CINT: VIC, devices, clear screen
        jmp k_screen_init

* = $e536                       ; the text colour from A, then clear the screen (the tail of CINT's
        sta COLOR               ; screen setup, which programs call to clear in a colour)
        jmp clear_screen_home

* = $e544                       ; clear the screen, cursor home (cc65's CLRSCR)
        jmp clear_screen_home

* = $e566                       ; cursor home
        jmp home

* = $e5b4                       ; take a key from the buffer (cc65's KBDREAD): A = key, C=0
        jsr pop_key
        cli
        clc
        rts

* = $ea24                       ; colour pointer from the screen pointer (cc65's UPDCRAMPTR)
        lda PNT
        sta USER
        lda PNT+1
        and #$03
        ora #$d8
        sta USER+1
        rts

* = $ea31                       ; default IRQ handler: the jiffy clock, then $EA7E
        jsr k_udtim
        jmp $ea7e
* = $ea7e                       ; acknowledge CIA 1's interrupt, then $EA81
        lda $dc0d
* = $ea81                       ; restore A/X/Y as the IRQ entry at $FF48 saved them, RTI
        pla
        tay
        pla
        tax
        pla
        rti
* = $ea87                       ; SCNKEY's routine
        jmp k_scnkey


; ---- the body of the KERNAL stand-in --------------------------------------------------------
* = $ea90

k_reset:
        ldx #$ff
        sei
        txs
        cld
        jsr $fda3               ; IOINIT
        jsr $fd50               ; RAMTAS
        jsr $fd15               ; RESTOR
        jsr $ff5b               ; CINT
        cli
        jmp ($a000)

; IOINIT: both CIAs quiet (interrupts off, timers stopped), their ports as the C64 wires them
; (keyboard columns out, rows in; the serial bus and the VIC bank on CIA 2), the SID silent, the
; 6510 port, then CIA 1's timer A as the 60 Hz interrupt.
k_ioinit:
        lda #$7f
        sta $dc0d
        sta $dd0d
        sta $dc00               ; keyboard columns: all but column 7 high
        lda #$08                ; timers stopped, one-shot
        sta $dc0e
        sta $dd0e
        sta $dc0f
        sta $dd0f
        ldx #$00
        stx $dc03               ; keyboard rows in
        stx $dd03               ; user port in
        stx $d418               ; SID volume 0
        dex
        stx $dc02               ; keyboard columns out
        lda #$07                ; VIC bank 0, RS-232 TXD high, serial ATN/CLK/DATA released
        sta $dd00
        lda #$3f
        sta $dd02
        lda #$37                ; the port's output value first, then make those pins outputs
        sta $01
        lda #$2f
        sta $00
        jsr k_irq_timer
        lda $dd00               ; serial CLK out bit set, as the KERNAL leaves the bus after reset
        ora #$10
        sta $dd00
        rts

; CIA 1 timer A: an interrupt 60 times a second on either video standard ($02A6 = 1: PAL)
k_irq_timer:
        lda PALNTS
        beq +
        lda #<PAL_JIFFY
        sta $dc04
        lda #>PAL_JIFFY
        jmp ++
+       lda #<NTSC_JIFFY
        sta $dc04
        lda #>NTSC_JIFFY
++      sta $dc05
        lda #$81                ; timer A interrupt on
        sta $dc0d
        lda $dc0e
        and #$80                ; keep the TOD's 50/60 Hz choice
        ora #$11                ; force load, start, continuous
        sta $dc0e
        rts
PAL_JIFFY = (985248 + 30) / 60  ; the CPU clock / 60, rounded: $4025
NTSC_JIFFY = (1022727 + 30) / 60        ; $4295

k_ramtas:
        lda #0
        tay
-       sta $0002,y
        sta $0200,y
        sta $0300,y
        iny
        bne -
        lda #$00
        sta MEMSTR
        sta MEMTOP
        lda #$08
        sta MEMSTR+1
        lda #$a0
        sta MEMTOP+1
        lda #$04
        sta HIBASE
        lda #<$033c             ; the cassette buffer
        sta TAPE1
        lda #>$033c
        sta TAPE1+1
        rts

k_restor:
        ldx #<default_vectors
        ldy #>default_vectors
        clc
k_vector:                       ; C=1: copy the RAM vectors to (X/Y); C=0: set them from (X/Y)
        stx MEMUSS
        sty MEMUSS+1
        ldy #$1f
-       lda CINV,y
        bcs +
        lda (MEMUSS),y
+       sta (MEMUSS),y
        sta CINV,y
        dey
        bpl -
        rts

default_vectors:
        !word $ea31, $fe66, $fe47, k_open, k_close, k_chkin, k_ckout, k_clrch
        !word k_basin, k_bsout, k_stop, k_getin, k_clall, $fe66, k_load, k_save

; CINT: the screen editor (VIC registers, devices, an empty screen), then which video standard
; the VIC runs ($02A6) and the jiffy interrupt timed for it.
k_cint:
        jsr k_screen_init
        jsr detect_pal
        jmp k_irq_timer

k_screen_init:
        ldx #vic_defaults_end - vic_defaults - 1
-       lda vic_defaults,x
        sta $d000,x
        dex
        bpl -
        lda #3
        sta DFLTO
        lda #0
        sta DFLTN
        sta RVS
        sta QTSW
        sta NDX
        sta CRSW
        sta MODE
        lda #$0e
        sta COLOR
        lda #39
        sta LNMX
        lda #10
        sta XMAX
        jmp clear_screen_home

; The VIC-II after CINT: no sprites, text mode with 25 rows and 40 columns, the screen at $0400
; with the upper-case character set, light blue border on blue, the raster compare at line 311
; (no raster interrupt is enabled), the extra colours 1, 2, 3 and the sprite colours 1-7 and 12.
vic_defaults:
        !fill 16, 0             ; sprite positions
        !byte 0                 ; $D010 sprite X bit 8
        !byte $9b, $37          ; $D011/$D012: display on, 25 rows, Y scroll 3; compare line $137
        !byte 0, 0              ; $D013/$D014 light pen (read-only)
        !byte 0                 ; $D015 sprites off
        !byte $08               ; $D016: 40 columns
        !byte 0                 ; $D017
        !byte $14               ; $D018: screen $0400, characters $1000 (the ROM)
        !byte $0f               ; $D019: acknowledge
        !byte 0, 0, 0, 0        ; $D01A-$D01D
        !byte 0, 0              ; $D01E/$D01F collisions (read-only)
        !byte $0e, $06          ; border, background
        !byte 1, 2, 3           ; background colours 1-3
        !byte 4, 0              ; sprite multicolours
        !byte 1, 2, 3, 4, 5, 6, 7, 12   ; sprite colours
vic_defaults_end:

; $02A6 = 1 when the VIC has the PAL's 312 lines (a line above 263 exists), 0 otherwise.
detect_pal:
-       lda $d011               ; wait for a line >= 256
        bpl -
-       lda $d012
        cmp #$08                ; line 264 or later: only a PAL frame has it
        bcs +
        lda $d011
        bmi -
        lda #0
        sta PALNTS
        rts
+       lda #1
        sta PALNTS
        rts

; ---- screen editor ----------------------------------------------------------------------------

line_ptrs:                      ; X = row -> PNT (screen) and USER (colour); keeps X and Y
        lda row_lo,x
        sta PNT
        sta USER
        lda row_hi,x
        ora #$d8
        sta USER+1
        lda row_hi,x
        clc
        adc HIBASE
        sta PNT+1
        rts

clear_line:                     ; X = row; keeps X; the line starts a logical line ($D9 table)
        jsr line_ptrs
        lda PNT+1
        ora #$80
        sta LDTB1,x
        ldy #39
-       lda #' '
        sta (PNT),y
        lda COLOR
        sta (USER),y
        dey
        bpl -
        rts

clear_screen_home:
        ldx #24
-       jsr clear_line
        dex
        bpl -
home:
        lda #0
        sta PNTR
        sta TBLX
        tax
        jmp line_ptrs

newline:
        lda #0
        sta PNTR
line_down:
        inc TBLX
        lda TBLX
        cmp #25
        bcc +
        jsr scroll_up
        lda #24
        sta TBLX
+       ldx TBLX
        jmp line_ptrs

scroll_up:
        ldx #0
su_row: jsr line_ptrs
        lda PNT
        sta TMP1
        lda PNT+1
        sta TMP1+1
        lda USER
        sta TMP2
        lda USER+1
        sta TMP2+1
        inx
        jsr line_ptrs
        ldy #39
-       lda (PNT),y
        sta (TMP1),y
        lda (USER),y
        sta (TMP2),y
        dey
        bpl -
        cpx #24
        bcc su_row
        jmp clear_line          ; X = 24

; one character to the screen; keeps A, X, Y; C=0
screen_out:
        sta DATA
        pha
        txa
        pha
        tya
        pha
        lda DATA
        cmp #$0d
        beq so_cr
        cmp #$8d
        beq so_cr
        cmp #$20
        bcc so_ctrl
        cmp #$80
        bcc so_print
        cmp #$a0
        bcc so_ctrl
so_print:
        cmp #$40
        bcc so_put
        cmp #$60
        bcc so_m40
        cmp #$80
        bcc so_m20
        cmp #$c0
        bcc so_m40
        cmp #$ff
        beq so_pi
        and #$7f
        jmp so_put
so_m40: sec
        sbc #$40
        jmp so_put
so_m20: sec
        sbc #$20
        jmp so_put
so_pi:  lda #$5e
so_put: ldx RVS
        beq +
        ora #$80
+       ldy PNTR
        sta (PNT),y
        lda COLOR
        sta (USER),y
        iny
        sty PNTR
        cpy #40
        bcc so_done
        jsr newline
so_done:
        pla
        tay
        pla
        tax
        pla
        clc
        rts
so_cr:  lda #0
        sta RVS
        sta QTSW
        jsr newline
        jmp so_done

so_ctrl:
        ldx #15
-       cmp color_codes,x
        beq so_color
        dex
        bpl -
        cmp #$93
        beq so_clr
        cmp #$13
        beq so_home
        cmp #$0e
        beq so_lower
        cmp #$8e
        beq so_upper
        cmp #$12
        beq so_rvs_on
        cmp #$92
        beq so_rvs_off
        cmp #$11
        beq so_down
        cmp #$91
        beq so_up
        cmp #$1d
        beq so_right
        cmp #$9d
        beq so_left
        cmp #$14
        beq so_del
        jmp so_done             ; other control codes do nothing here
so_color:
        stx COLOR
        jmp so_done
so_clr: jsr clear_screen_home
        jmp so_done
so_home:
        jsr home
        jmp so_done
so_lower:
        lda $d018
        ora #$02
        sta $d018
        jmp so_done
so_upper:
        lda $d018
        and #$fd
        sta $d018
        jmp so_done
so_rvs_on:
        lda #$12
        sta RVS
        jmp so_done
so_rvs_off:
        lda #0
        sta RVS
        jmp so_done
so_down:
        jsr line_down
        jmp so_done
so_up:  lda TBLX
        beq +
        dec TBLX
        ldx TBLX
        jsr line_ptrs
+       jmp so_done
so_right:
        inc PNTR
        lda PNTR
        cmp #40
        bcc +
        lda #0
        sta PNTR
        jsr line_down
+       jmp so_done
so_left:
        lda PNTR
        beq +
        dec PNTR
        jmp so_done
+       lda TBLX
        beq +
        dec TBLX
        lda #39
        sta PNTR
        ldx TBLX
        jsr line_ptrs
+       jmp so_done
so_del: lda PNTR
        beq +
        dec PNTR
        ldy PNTR
        lda #' '
        sta (PNT),y
+       jmp so_done

color_codes:
        !byte $90, $05, $1c, $9f, $9c, $1e, $1f, $9e, $81, $95, $96, $97, $98, $99, $9a, $9b
row_lo:
        !for r, 0, 24 { !byte <(r * 40) }
row_hi:
        !for r, 0, 24 { !byte >(r * 40) }

; ---- keyboard buffer ----------------------------------------------------------------------------

; first key of the buffer -> A, the rest moves down; only with NDX > 0; changes X and Y
pop_key:
        ldy KEYD
        ldx #0
-       lda KEYD+1,x
        sta KEYD,x
        inx
        cpx NDX
        bne -
        dec NDX
        tya
        rts
pop_key_end:

; ---- KERNAL routines --------------------------------------------------------------------------

k_bsout:
        pha
        lda DFLTO
        cmp #3
        bne +
        pla
        jmp screen_out
+       lda STATUS              ; no other output device exists here
        ora #$80
        sta STATUS
        pla
        sec
        rts

k_basin:
        lda DFLTN
        beq +
        lda #$0d                ; the screen as input: an empty line
        clc
        rts
+       lda CRSW
        bne basin_next
        txa                     ; a new line from the keyboard: read it with echo
        pha
        tya
        pha
        ldx #0
kbl_wait:
        lda NDX
        beq kbl_wait
        stx XSAV
        jsr pop_key
        ldx XSAV
        cmp #$0d
        beq kbl_done
        cmp #$14
        bne +
        cpx #0
        beq kbl_wait
        dex
        jsr screen_out
        jmp kbl_wait
+       cpx #MAXLINE
        bcs kbl_wait
        sta BUF,x
        inx
        jsr screen_out
        jmp kbl_wait
kbl_done:                       ; RETURN is not echoed: the caller prints the new line, as with
        stx INDX                ; the real screen editor (BASIC's INPUT and cc65's read() do)
        lda #0
        sta LINPOS
        lda #1
        sta CRSW
        pla
        tay
        pla
        tax
basin_next:
        sty XSAV
        ldy LINPOS
        cpy INDX
        bcs +
        lda BUF,y
        inc LINPOS
        ldy XSAV
        clc
        rts
+       lda #0
        sta CRSW
        ldy XSAV
        lda #$0d
        clc
        rts

k_getin:
        lda DFLTN
        bne k_basin
        lda NDX
        beq +
        txa
        pha
        tya
        pha
        jsr pop_key
        sta DATA
        pla
        tay
        pla
        tax
        lda DATA
+       clc
        rts

k_stop:                         ; there is no STOP key: Z=0
        lda #$ff
        clc
        rts

; X = logical file number -> C=0 and X = table index when open, C=1 when not; A = the number
find_lfn:
        txa
        ldx LDTND
-       dex
        bmi +
        cmp LAT,x
        bne -
        clc
        rts
+       sec
        rts

k_open:
        ldx LA
        jsr find_lfn
        bcc open_already
        ldx LDTND
        cpx #10
        bcs open_too_many
        lda FA
        beq +
        cmp #3
        beq +
        lda #5                  ; only the keyboard (0) and the screen (3) exist
        sec
        rts
+       lda LA
        sta LAT,x
        lda FA
        sta FAT,x
        lda SA
        ora #$60
        sta SAT,x
        inc LDTND
        clc
        rts
open_too_many:
        lda #1
        sec
        rts
open_already:
        lda #2
        sec
        rts

k_close:
        tax
        jsr find_lfn
        bcs +
        dec LDTND
        ldy LDTND
        lda LAT,y
        sta LAT,x
        lda FAT,y
        sta FAT,x
        lda SAT,y
        sta SAT,x
+       clc
        rts

k_chkin:
        jsr find_lfn
        bcs not_open
        lda FAT,x
        sta DFLTN
        clc
        rts
not_open:
        lda #3
        sec
        rts

k_ckout:
        jsr find_lfn
        bcs not_open
        lda FAT,x
        beq +
        sta DFLTO
        clc
        rts
+       lda #7                  ; the keyboard is not an output
        sec
        rts

k_clrch:
        lda #3
        sta DFLTO
        lda #0
        sta DFLTN
        rts

k_clall:
        lda #0
        sta LDTND
        jmp (ICLRCH)

k_load:
k_save:
        lda FA
        beq +
        cmp #3
        beq +
        lda #5                  ; no disk or tape: device not present
        sec
        rts
+       lda #9                  ; keyboard or screen: illegal device
        sec
        rts

k_serial:                       ; no serial bus: status "device not present"
        pha
        lda STATUS
        ora #$80
        sta STATUS
        pla
        sec
        rts

k_acptr:
        jsr k_serial
        lda #0
        rts

k_memtop:
        bcc +
        ldx MEMTOP
        ldy MEMTOP+1
+       stx MEMTOP
        sty MEMTOP+1
        rts

k_membot:
        bcc +
        ldx MEMSTR
        ldy MEMSTR+1
+       stx MEMSTR
        sty MEMSTR+1
        rts

k_settmo:
        sta TIMOUT
        rts

k_setmsg:
        sta MSGFLG
        rts

k_readst:
        lda STATUS
        rts

k_setlfs:
        sta LA
        stx FA
        sty SA
        rts

k_setnam:
        sta FNLEN
        stx FNADR
        sty FNADR+1
        rts

k_screen:
        ldx #40
        ldy #25
        rts

k_plot:
        bcs +
        stx TBLX
        sty PNTR
        jsr line_ptrs
        ldx TBLX
        ldy PNTR
        clc
        rts
+       ldx TBLX
        ldy PNTR
        rts

k_iobase:
        ldx #$00
        ldy #$dc
        rts

k_udtim:
        inc TIME+2
        bne +
        inc TIME+1
        bne +
        inc TIME
+       rts

k_rdtim:
        lda TIME+2
        ldx TIME+1
        ldy TIME
        rts

k_settim:
        sei
        sta TIME+2
        stx TIME+1
        sty TIME
        cli
        rts

k_scnkey:                       ; no keyboard matrix: keys arrive in the buffer from the host
        rts

k_load_entry:
        stx MEMUSS
        sty MEMUSS+1
        jmp (ILOAD)

k_save_entry:
        jmp (ISAVE)


* = $fce2                       ; RESET
        jmp k_reset

; the KERNAL routines' own addresses, which programs also call directly
* = $fd15                       ; RESTOR
        jmp k_restor
* = $fd1a                       ; VECTOR
        jmp k_vector
* = $fd50                       ; RAMTAS
        jmp k_ramtas
* = $fda3                       ; IOINIT
        jmp k_ioinit
* = $fddd                       ; the jiffy timer for the video standard in $02A6
        jmp k_irq_timer

* = $fe43                       ; NMI
        sei
        jmp (NMINV)
* = $fe47                       ; default NMI handler
        pha
        txa
        pha
        tya
        pha
        jmp $febc
* = $fe66                       ; default BRK handler: BASIC warm start
        jmp ($a002)
* = $febc
        pla
        tay
        pla
        tax
        pla
        rti

* = $ff48                       ; IRQ and BRK
        pha
        txa
        pha
        tya
        pha
        tsx
        lda $0104,x
        and #$10
        beq +
        jmp (CBINV)
+       jmp (CINV)

* = $ff5b                       ; CINT
        jmp k_cint

* = $ff81                       ; the jump table
        jmp $ff5b               ; CINT
        jmp $fda3               ; IOINIT
        jmp $fd50               ; RAMTAS
        jmp $fd15               ; RESTOR
        jmp $fd1a               ; VECTOR
        jmp k_setmsg            ; SETMSG
        jmp k_serial            ; SECOND
        jmp k_serial            ; TKSA
        jmp k_memtop            ; MEMTOP
        jmp k_membot            ; MEMBOT
        jmp k_scnkey            ; SCNKEY
        jmp k_settmo            ; SETTMO
        jmp k_acptr             ; ACPTR
        jmp k_serial            ; CIOUT
        jmp k_serial            ; UNTLK
        jmp k_serial            ; UNLSN
        jmp k_serial            ; LISTEN
        jmp k_serial            ; TALK
        jmp k_readst            ; READST
        jmp k_setlfs            ; SETLFS
        jmp k_setnam            ; SETNAM
        jmp (IOPEN)             ; OPEN
        jmp (ICLOSE)            ; CLOSE
        jmp (ICHKIN)            ; CHKIN
        jmp (ICKOUT)            ; CHKOUT
        jmp (ICLRCH)            ; CLRCHN
        jmp (IBASIN)            ; CHRIN
        jmp (IBSOUT)            ; CHROUT
        jmp k_load_entry        ; LOAD
        jmp k_save_entry        ; SAVE
        jmp k_settim            ; SETTIM
        jmp k_rdtim             ; RDTIM
        jmp (ISTOP)             ; STOP
        jmp (IGETIN)            ; GETIN
        jmp (ICLALL)            ; CLALL
        jmp k_udtim             ; UDTIM
        jmp k_screen            ; SCREEN
        jmp k_plot              ; PLOT
        jmp k_iobase            ; IOBASE

* = $fffa
        !word $fe43, $fce2, $ff48
