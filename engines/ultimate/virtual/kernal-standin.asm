; The BASIC/KERNAL stand-in of the virtual C64 (acme syntax, 6510).
;
; Written for mcp-engines; it is not Commodore code and contains none. It provides what a program
; built with cc65, acme or 64tass needs to start from a BASIC "SYS" stub and run:
;   - the reset, IRQ, NMI and BRK entry points at the real KERNAL's addresses ($FCE2, $FF48,
;     $FE43, $EA31/$EA81, $FE47/$FEBC, $FE66) and the RAM vectors at $0314-$0333; the exits to
;     BASIC programs use ($A474 READY, $E37B warm start, the $A002 vector);
;   - the three internal entry points cc65's C64 library calls directly: $E544 (clear screen),
;     $E5B4 (read a key from the buffer), $EA24 (colour pointer from the screen pointer);
;   - the whole KERNAL jump table $FF81-$FFF3, each entry with a defined behaviour: the screen
;     editor (CHROUT with PETSCII controls, colours, reverse, scrolling; PLOT, SCREEN), the keyboard
;     buffer at $0277 (GETIN, CHRIN line input), logical files on the keyboard (0) and screen (3),
;     the jiffy clock routines; no serial bus, tape or disk: those report "device not present";
;   - a BASIC stand-in that only knows RUN (of a program whose first line is a SYS) and SYS n,
;     typed into the keyboard buffer as the Ultimate does; anything else prints an error saying so.
; System variables live at the real addresses, so programs that read them find what they expect.
;
; Build: node --import tsx engines/ultimate/virtual/kernal-standin-build.ts
; (assembles this file with acme and regenerates kernal-standin.ts).

!cpu 6510

; ---- system variables (real C64 addresses) -------------------------------------------------
LINNUM  = $14           ; SYS address
TXTTAB  = $2b           ; start of the BASIC program
VARTAB  = $2d
ARYTAB  = $2f
STREND  = $31
MEMSIZ  = $37           ; top of BASIC memory
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
ready:
        ldx #0
-       lda ready_text,x
        beq main_loop
        jsr CHROUT
        inx
        bne -

main_loop:
        lda #$80                ; direct mode
        sta MSGFLG
        jsr basic_read_line     ; X = length
        lda #0
        sta BUF,x
        lda #<BUF
        sta TXTPTR
        lda #>BUF
        sta TXTPTR+1
        ldy #0
        jsr skip_spaces
        lda (TXTPTR),y
        beq main_loop           ; empty line
        cmp #'R'
        bne +
        iny
        lda (TXTPTR),y
        cmp #'U'
        bne only_run_sys
        iny
        lda (TXTPTR),y
        cmp #'N'
        bne only_run_sys
        jmp run_program
+       cmp #'S'
        bne only_run_sys
        iny
        lda (TXTPTR),y
        cmp #'Y'
        bne only_run_sys
        iny
        lda (TXTPTR),y
        cmp #'S'
        bne only_run_sys
        iny
        jmp sys_args

only_run_sys:
        ldx #0
-       lda only_run_sys_text,x
        beq +
        jsr CHROUT
        inx
        bne -
+       jmp ready

; RUN: the first line of the program must be [spaces] SYS [spaces] [(] number.
run_program:
        lda #$00                ; program mode
        sta MSGFLG
        lda TXTTAB
        sta TXTPTR
        lda TXTTAB+1
        sta TXTPTR+1
        ldy #1
        lda (TXTPTR),y          ; high byte of the link: 0 = no program
        beq +
        ldy #4
        jsr skip_spaces
        lda (TXTPTR),y
        cmp #$9e                ; the SYS token
        bne not_sys_program
        iny
        jmp sys_args
+       jmp ready

not_sys_program:
        ldx #0
-       lda not_sys_text,x
        beq +
        jsr CHROUT
        inx
        bne -
+       jmp ready

syntax_error:
        ldx #0
-       lda syntax_text,x
        beq +
        jsr CHROUT
        inx
        bne -
+       jmp ready

; SYS: the address at (TXTPTR),y; registers from $030C-$030F in and out, as BASIC's SYS does.
sys_args:
        jsr skip_spaces
        lda (TXTPTR),y
        cmp #'('
        bne +
        iny
        jsr skip_spaces
+       jsr parse_number
        bcs syntax_error
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
        jmp basic_warm

skip_spaces:
-       lda (TXTPTR),y
        cmp #' '
        bne +
        iny
        bne -
+       rts

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

banner:
        !byte $0d
        !text "  MCP-ENGINES VIRTUAL C64 - NO CBM ROMS", $0d
        !text " STAND-IN BASIC: RUN OF A SYS LINE, SYS", $0d, 0
ready_text:
        !byte $0d
        !text "READY.", $0d, 0
only_run_sys_text:
        !byte $0d
        !text "?STAND-IN BASIC KNOWS ONLY RUN AND SYS", $0d, 0
not_sys_text:
        !byte $0d
        !text "?PROGRAM DOES NOT START WITH SYS", $0d, 0
syntax_text:
        !byte $0d
        !text "?SYNTAX  ERROR", $0d, 0

* = $a474                       ; BASIC's "print READY" entry, which programs jump to when done
        jmp ready

; =============================================================================================
; KERNAL stand-in, $E000-$FFFF
; =============================================================================================
* = $e000
        !text "MCP-ENGINES VIRTUAL C64 KERNAL STAND-IN, NOT CBM CODE", 0

; ---- entry points at the real KERNAL's addresses -------------------------------------------

* = $e37b                       ; BASIC warm start, another exit programs use
        jmp ($a002)

* = $e544                       ; clear the screen, cursor home (cc65's CLRSCR)
        jmp clear_screen_home

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

* = $ea31                       ; default IRQ handler
        jsr k_udtim
        lda $dc0d
        jmp $ea81
* = $ea81
        pla
        tay
        pla
        tax
        pla
        rti


; ---- the body of the KERNAL stand-in --------------------------------------------------------
* = $ea90

k_reset:
        ldx #$ff
        sei
        txs
        cld
        lda #$37                ; the port's output value first, then make those pins outputs
        sta $01
        lda #$2f
        sta $00
        jsr k_ioinit
        jsr k_ramtas
        jsr k_restor
        jsr k_cint
        cli
        jmp ($a000)

k_ioinit:
        lda #$1b
        sta $d011
        lda #$c8
        sta $d016
        lda #$14
        sta $d018
        lda #$0e
        sta $d020
        lda #$06
        sta $d021
        lda #$00
        sta $d01a               ; no VIC interrupts
        lda #$ff
        sta $d019
        lda #$7f                ; CIA interrupts off, timers stopped
        sta $dc0d
        sta $dd0d
        lda #$08
        sta $dc0e
        sta $dd0e
        sta $dc0f
        sta $dd0f
        lda #$00                ; CIA 2 port A: VIC bank 0, serial lines idle
        sta $dd03
        lda #$3f
        sta $dd02
        lda #$07
        sta $dd00
        lda #$25                ; CIA 1 timer A: $4025 + 1 cycles = 60 Hz on PAL, the jiffy IRQ
        sta $dc04
        lda #$40
        sta $dc05
        lda #$81
        sta $dc0d
        lda #$11                ; force load, start, continuous
        sta $dc0e
        lda $dc0d               ; nothing pending
        lda $dd0d
        rts

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

k_cint:
        lda #3
        sta DFLTO
        lda #0
        sta DFLTN
        sta RVS
        sta QTSW
        sta NDX
        sta CRSW
        lda #$0e
        sta COLOR
        lda #39
        sta LNMX
        lda #10
        sta XMAX
        jmp clear_screen_home

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

clear_line:                     ; X = row; keeps X
        jsr line_ptrs
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

* = $ff81                       ; the jump table
        jmp k_cint              ; CINT
        jmp k_ioinit            ; IOINIT
        jmp k_ramtas            ; RAMTAS
        jmp k_restor            ; RESTOR
        jmp k_vector            ; VECTOR
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
